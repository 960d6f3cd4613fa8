use std::fmt;

/// A position in a named input: 1-based line and column (columns count characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourcePos {
    pub file: String,
    pub line: usize,
    pub col: usize,
}

impl fmt::Display for SourcePos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// An error in user input (spec, signature, trace) or in using rvmon. All of them map to exit
/// status 2 in the CLI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub pos: Option<SourcePos>,
    pub message: String,
}

impl Error {
    pub fn at(pos: SourcePos, message: impl Into<String>) -> Self {
        Error {
            pos: Some(pos),
            message: message.into(),
        }
    }

    pub fn msg(message: impl Into<String>) -> Self {
        Error {
            pos: None,
            message: message.into(),
        }
    }

    /// A file that cannot be opened or read: "FILE: no such file" when it does not exist (the
    /// first thing to tell, before any question of its format or content), else what the
    /// system says.
    pub fn file(path: &str, e: &std::io::Error) -> Self {
        match e.kind() {
            std::io::ErrorKind::NotFound => Error::msg(format!("{path}: no such file")),
            _ => Error::msg(format!("{path}: cannot read: {e}")),
        }
    }

    /// Computes line and column of byte `offset` in `text` and attaches them with `file`.
    pub fn at_offset(file: &str, text: &str, offset: usize, message: impl Into<String>) -> Self {
        Error::at(
            crate::text::position_at(file, text.as_bytes(), 1, offset),
            message,
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.pos {
            Some(p) => write!(f, "{p}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::msg(format!("I/O error: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_to_line_and_column() {
        let e = Error::at_offset("f", "ab\ncdé\nx", 7, "m");
        assert_eq!(
            e.pos,
            Some(SourcePos {
                file: "f".into(),
                line: 2,
                col: 4
            })
        );
        assert_eq!(e.to_string(), "f:2:4: m");
    }

    #[test]
    fn a_missing_file_is_named_as_such() {
        let e = std::fs::File::open("/nonexistent/rvmon-test").unwrap_err();
        assert_eq!(Error::file("t.log", &e).to_string(), "t.log: no such file");
    }
}
