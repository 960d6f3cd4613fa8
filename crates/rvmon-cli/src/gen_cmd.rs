//! `rvmon gen`: benchmark workloads, written as MonPoly logs on standard output.

use std::io::{BufRead, Write};

use clap::{Args, Subcommand};
use rvmon_core::Error;

#[derive(Args, Debug, Clone)]
pub struct GenArgs {
    #[command(subcommand)]
    pub workload: Workload,
}

#[derive(Subcommand, Debug, Clone)]
pub enum Workload {
    /// Random propositional time points: each proposition holds with probability `density`.
    Props {
        /// Number of time points.
        #[arg(long, default_value_t = 100_000)]
        length: u64,
        /// Proposition names, comma-separated.
        #[arg(long, default_value = "p,q,r,s")]
        props: String,
        #[arg(long, default_value_t = 0.3)]
        density: f64,
        /// Largest timestamp increment between time points (0 allows equal timestamps).
        #[arg(long, default_value_t = 1)]
        max_step: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Concatenates time-shifted copies of a MonPoly log (copy k adds k × shift to every
    /// timestamp): how the timescales traces are scaled to 1 M time points.
    Repeat {
        log: String,
        #[arg(long, default_value_t = 10)]
        copies: u64,
        /// Timestamp shift per copy; by default the log's last timestamp + 1, so that copies
        /// never overlap (the timescales traces run slightly past 100,000).
        #[arg(long)]
        shift: Option<i64>,
        /// Rename every data value of copy k by appending `_k` (k ≥ 1), so that copies talk
        /// about distinct objects (users, files, locks): a 10 k DejaVu log becomes a 1 M one with
        /// the same shape.
        #[arg(long)]
        rename: bool,
    },
}

/// SplitMix64: a tiny, well-mixed generator, enough for reproducible workloads.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

pub fn run(args: &GenArgs, out: &mut dyn Write) -> Result<i32, Error> {
    match &args.workload {
        Workload::Props {
            length,
            props,
            density,
            max_step,
            seed,
        } => {
            let names: Vec<&str> = props
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .collect();
            let mut rng = SplitMix(*seed);
            let mut ts: u64 = 0;
            for i in 0..*length {
                if i > 0 && *max_step > 0 {
                    ts += rng.next_u64() % (max_step + 1);
                }
                write!(out, "@{ts}")?;
                for n in &names {
                    if rng.unit() < *density {
                        write!(out, " {n}()")?;
                    }
                }
                writeln!(out)?;
            }
        }
        Workload::Repeat {
            log,
            copies,
            shift,
            rename,
        } => {
            let text = crate::read_file(log)?;
            let last_ts = text
                .lines()
                .filter_map(|l| l.trim_start().strip_prefix('@'))
                .filter_map(|r| {
                    r[..r.bytes().take_while(u8::is_ascii_digit).count()]
                        .parse::<i64>()
                        .ok()
                })
                .max()
                .unwrap_or(0);
            let shift = shift.unwrap_or(last_ts + 1);
            for k in 0..*copies {
                let add = shift * k as i64;
                for line in text.as_bytes().lines() {
                    let line = line?;
                    match line.trim_start().strip_prefix('@') {
                        Some(rest) => {
                            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                            let ts: i64 = rest[..digits].parse().map_err(|_| {
                                Error::msg(format!(
                                    "{log}: a line starts with `@` but no timestamp"
                                ))
                            })?;
                            let body = &rest[digits..];
                            if *rename && k > 0 {
                                writeln!(out, "@{}{}", ts + add, rename_values(body, k))?;
                            } else {
                                writeln!(out, "@{}{}", ts + add, body)?;
                            }
                        }
                        None => writeln!(out, "{line}")?,
                    }
                }
            }
        }
    }
    out.flush()?;
    Ok(0)
}

/// Appends `_k` to every value inside the tuples of a MonPoly log line.
fn rename_values(body: &str, k: u64) -> String {
    let mut out = String::with_capacity(body.len() + 8);
    let mut depth = 0;
    let mut in_value = false;
    for c in body.chars() {
        match c {
            '(' => {
                depth += 1;
                out.push(c);
            }
            ')' | ',' if depth > 0 => {
                if in_value {
                    out.push_str(&format!("_{k}"));
                    in_value = false;
                }
                if c == ')' {
                    depth -= 1;
                }
                out.push(c);
            }
            c if depth > 0 && !c.is_whitespace() => {
                in_value = true;
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}
