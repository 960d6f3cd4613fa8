//! A system under learning that is another program: it reads one word a line on its
//! standard input (the symbols separated by single spaces; the empty word is an empty line)
//! and answers each with one line, `1` or `0` (also `true`/`false`, `yes`/`no`,
//! `accept`/`reject`, in any case). It answers whole words only.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crate::teacher::System;

pub struct Process {
    command: String,
    alphabet: Vec<String>,
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    /// The first failure (the process ended, an answer that is not one): every later
    /// answer is `false`, and the caller reports it ([`Process::failure`]).
    failed: Option<String>,
    line: String,
}

impl Process {
    /// Starts `command` with the shell.
    pub fn start(command: &str, alphabet: Vec<String>) -> Result<Process, String> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start `{command}`: {e}"))?;
        let input = child.stdin.take().ok_or("no standard input")?;
        let output = BufReader::new(child.stdout.take().ok_or("no standard output")?);
        Ok(Process {
            command: command.to_string(),
            alphabet,
            child,
            input,
            output,
            failed: None,
            line: String::new(),
        })
    }

    /// What went wrong, if anything did.
    pub fn failure(&self) -> Option<&str> {
        self.failed.as_deref()
    }

    fn ask(&mut self, word: &[usize]) -> bool {
        if self.failed.is_some() {
            return false;
        }
        let text: Vec<&str> = word.iter().map(|&a| self.alphabet[a].as_str()).collect();
        let text = text.join(" ");
        // (A failed write is not reported as such: a program that has ended may have
        // answered first, and its answer, or its end, is what the user needs to hear.)
        let _ = writeln!(self.input, "{text}").and_then(|()| self.input.flush());
        self.line.clear();
        let read = self.output.read_line(&mut self.line);
        let answer = match read {
            Ok(0) => Err("it ended without answering".to_string()),
            Ok(_) => match self.line.trim().to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "accept" | "t" => Ok(true),
                "0" | "false" | "no" | "reject" | "f" => Ok(false),
                other => Err(format!("it answered `{other}`, expected 1 or 0")),
            },
            Err(e) => Err(format!("its answer could not be read ({})", e.kind())),
        };
        answer.unwrap_or_else(|why| {
            self.failed = Some(format!("`{}` asked the word `{text}`: {why}", self.command));
            false
        })
    }
}

impl System for Process {
    fn initial(&mut self) -> bool {
        self.ask(&[])
    }

    fn run(&mut self, word: &[usize], out: &mut Vec<bool>) {
        out.clear();
        let answer = self.ask(word);
        out.push(answer);
    }

    fn prefixes(&self) -> bool {
        false
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
