//! Input text: every file and line rvmon reads is checked to be UTF-8 here, so that a bad byte
//! is reported where it is (`file:line:col: invalid UTF-8 (byte 0xFF)`), as any other error in
//! the input, and not as the standard library's position-less "stream did not contain valid
//! UTF-8".

use std::io::BufRead;

use crate::{Error, SourcePos};

/// The position of byte `offset` of `bytes`, whose first byte starts line `first_line`.
/// Columns count characters (the bytes before `offset` on its line are taken as UTF-8, a bad
/// sequence counting as one character).
pub fn position_at(file: &str, bytes: &[u8], first_line: usize, offset: usize) -> SourcePos {
    let before = &bytes[..offset.min(bytes.len())];
    let line = first_line + before.iter().filter(|&&b| b == b'\n').count();
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    SourcePos {
        file: file.to_string(),
        line,
        col: String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1,
    }
}

/// The error for bytes that are not UTF-8 at `pos`: `bad` are the bytes of the bad sequence
/// (empty when the input ends inside a character).
pub fn invalid_utf8(pos: SourcePos, bad: &[u8]) -> Error {
    let what = match bad.first() {
        Some(b) => format!("invalid UTF-8 (byte 0x{b:02X})"),
        None => "invalid UTF-8 (the input ends inside a character)".to_string(),
    };
    Error::at(pos, what)
}

/// `bytes` as text, or the error at the first byte that is not UTF-8; `bytes` start at line
/// `first_line`, column 1 (1 for a whole file).
pub fn utf8<'a>(file: &str, first_line: usize, bytes: &'a [u8]) -> Result<&'a str, Error> {
    std::str::from_utf8(bytes).map_err(|e| utf8_error(file, first_line, bytes, &e))
}

/// [`utf8`], without copying the bytes.
pub fn into_utf8(file: &str, first_line: usize, bytes: Vec<u8>) -> Result<String, Error> {
    String::from_utf8(bytes)
        .map_err(|e| utf8_error(file, first_line, e.as_bytes(), &e.utf8_error()))
}

fn utf8_error(file: &str, first_line: usize, bytes: &[u8], e: &std::str::Utf8Error) -> Error {
    let at = e.valid_up_to();
    let bad = &bytes[at..at + e.error_len().unwrap_or(0)];
    invalid_utf8(position_at(file, bytes, first_line, at), bad)
}

/// A whole file as text: "FILE: no such file" when it does not exist, else its bytes checked
/// by [`utf8`].
pub fn read_text_file(path: &str) -> Result<String, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::file(path, &e))?;
    into_utf8(path, 1, bytes)
}

/// Reads one line into `line` (its line break kept), as [`BufRead::read_line`] does, but bytes
/// that are not UTF-8 are an error at their place: `line_no` is the number of the line read.
/// Returns the number of bytes read (0 at the end of the input). On an error `line` is empty.
pub fn read_line(
    src: &mut dyn BufRead,
    line: &mut String,
    file: &str,
    line_no: usize,
) -> Result<usize, Error> {
    // The line's buffer is reused as bytes, so a line costs no allocation, as read_line.
    let mut bytes = std::mem::take(line).into_bytes();
    bytes.clear();
    let n = src
        .read_until(b'\n', &mut bytes)
        .map_err(|e| Error::msg(format!("{file}: cannot read: {e}")))?;
    *line = into_utf8(file, line_no, bytes)?;
    Ok(n)
}

/// The value of `label=` in a DOT attribute list (`[label="a", shape=…]`), without its quotes:
/// what the automata and Markov chains that AALpy and LearnLib write put there.
pub fn dot_label(attrs: &str) -> Option<String> {
    let at = attrs.find("label")?;
    let rest = attrs[at + 5..].trim_start().strip_prefix('=')?.trim_start();
    if let Some(quoted) = rest.strip_prefix('"') {
        Some(quoted[..quoted.find('"')?].to_string())
    } else {
        let end = rest
            .find(|c: char| c.is_whitespace() || c == ']' || c == ',' || c == ';')
            .unwrap_or(rest.len());
        Some(rest[..end].to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_byte_is_found_by_line_and_character() {
        let e = utf8("f", 1, b"ab\ncd\xc3\xa9x\xffy").unwrap_err();
        assert_eq!(e.to_string(), "f:2:5: invalid UTF-8 (byte 0xFF)");
        let e = utf8("f", 7, b"ab\xe2\x82").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f:7:3: invalid UTF-8 (the input ends inside a character)"
        );
        assert_eq!(utf8("f", 1, "é\n".as_bytes()).unwrap(), "é\n");
    }

    #[test]
    fn lines_are_read_as_text_or_refused_where_they_break() {
        let mut src: &[u8] = b"ok\nno \xc0\x80\n";
        let mut line = String::new();
        assert_eq!(read_line(&mut src, &mut line, "t", 1).unwrap(), 3);
        assert_eq!(line, "ok\n");
        let e = read_line(&mut src, &mut line, "t", 2).unwrap_err();
        assert_eq!(e.to_string(), "t:2:4: invalid UTF-8 (byte 0xC0)");
        assert_eq!(line, "");
    }
}
