//! Reading input parameter models from files: the native TOML format ([`native`]), PICT
//! ([`pict`]), ACTS ([`acts`]) and CASA ([`casa`]). Every parser reports errors with file, line
//! and column (1-based), never panics, and ends with [`Model::check`].

use std::fmt;
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::model::{Model, ModelError};

pub mod acts;
pub mod casa;
pub mod expr;
pub mod native;
pub mod pict;
#[cfg(test)]
mod testgen;

pub use expr::{parse_expr, ExprError};
pub use native::write_native;

/// A model file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// rigor's TOML format, see [`native`].
    Native,
    /// Microsoft PICT model files.
    Pict,
    /// NIST ACTS input files.
    Acts,
    /// CASA `.model` files (constraints live in a `.constraints` file beside them).
    Casa,
}

impl Format {
    /// Guesses the format from the file extension: `.toml` native, `.pict`/`.txt` PICT, `.acts`
    /// ACTS, `.model` CASA.
    pub fn from_path(p: &Path) -> Option<Format> {
        let ext = p.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "toml" => Some(Format::Native),
            "pict" | "txt" => Some(Format::Pict),
            "acts" => Some(Format::Acts),
            "model" => Some(Format::Casa),
            _ => None,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Native => "native",
            Format::Pict => "PICT",
            Format::Acts => "ACTS",
            Format::Casa => "CASA",
        })
    }
}

/// A located error in a model, suite or constraints file. Lines and columns are 1-based; columns
/// count characters, not bytes.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{}:{line}:{column}: {message}", file.display())]
pub struct ParseError {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl ParseError {
    pub fn new(file: &Path, line: usize, column: usize, message: impl Into<String>) -> ParseError {
        ParseError { file: file.to_path_buf(), line, column, message: message.into() }
    }
}

/// Reads a model file. `format` defaults to [`Format::from_path`]. For CASA the clauses are read
/// from the `.constraints` file beside the `.model` (see [`casa::read_with_strength`]).
pub fn read(path: &Path, format: Option<Format>) -> Result<Model, ParseError> {
    let format = match format.or_else(|| Format::from_path(path)) {
        Some(f) => f,
        None => {
            return Err(ParseError::new(
                path,
                1,
                1,
                "cannot tell the model format from the file name; use .toml (native), .pict or .txt (PICT), .acts (ACTS) or .model (CASA)",
            ))
        }
    };
    if format == Format::Casa {
        return casa::read_with_strength(path).map(|(m, _)| m);
    }
    let text = read_text(path)?;
    parse(&text, path, format)
}

/// Parses model text; `file` is only used to name it in errors (and as the default model name).
/// CASA text is the `.model` part alone, without constraints (use [`casa::parse_with_constraints`]).
pub fn parse(text: &str, file: &Path, format: Format) -> Result<Model, ParseError> {
    match format {
        Format::Native => native::parse(text, file),
        Format::Pict => pict::parse(text, file),
        Format::Acts => acts::parse(text, file),
        Format::Casa => casa::parse_with_constraints(text, file, None).map(|(m, _)| m),
    }
}

/// Reads a whole file as UTF-8, located errors at 1:1.
pub(crate) fn read_text(path: &Path) -> Result<String, ParseError> {
    let bytes = std::fs::read(path).map_err(|e| ParseError::new(path, 1, 1, format!("cannot read the file: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        // Locate the first bad byte: the position just past the valid prefix.
        let valid = e.utf8_error().valid_up_to();
        let prefix = std::str::from_utf8(&e.as_bytes()[..valid]).unwrap_or("");
        let (line, column) = Source::new(prefix, path).position(valid);
        ParseError::new(path, line, column, "the file is not valid UTF-8")
    })
}

/// Source text with its file name, turning byte offsets into located errors.
#[derive(Clone, Copy)]
pub(crate) struct Source<'a> {
    pub text: &'a str,
    pub file: &'a Path,
}

impl<'a> Source<'a> {
    pub fn new(text: &'a str, file: &'a Path) -> Source<'a> {
        Source { text, file }
    }

    /// 1-based (line, column) of a byte offset; offsets past the end or inside a character are
    /// clamped so that arbitrary input never panics.
    pub fn position(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        (line, column)
    }

    pub fn error(&self, offset: usize, message: impl Into<String>) -> ParseError {
        let (line, column) = self.position(offset);
        ParseError::new(self.file, line, column, message)
    }

    /// Runs [`Model::check`], locating its error with `locate` (a byte offset; 0 when unknown).
    pub fn check(&self, model: Model, locate: impl Fn(&ModelError) -> usize) -> Result<Model, ParseError> {
        match model.check() {
            Ok(()) => Ok(model),
            Err(e) => Err(self.error(locate(&e), e.to_string())),
        }
    }
}

/// Splits text into lines with the byte offset of each line start; `\r\n` endings lose the `\r`.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut start = 0;
    text.split('\n').map(move |l| {
        let at = start;
        start += l.len() + 1;
        (at, l.strip_suffix('\r').unwrap_or(l))
    })
}

/// Splits `s` at `sep`, giving each trimmed piece with the byte offset where its trimmed text
/// starts (relative to `s`).
pub(crate) fn split_trimmed(s: &str, sep: char) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if c == sep {
            out.push(trimmed(s, start, i));
            start = i + c.len_utf8();
        }
    }
    out.push(trimmed(s, start, s.len()));
    out
}

fn trimmed(s: &str, start: usize, end: usize) -> (usize, &str) {
    let piece = &s[start..end];
    let lead = piece.len() - piece.trim_start().len();
    (start + lead, piece.trim())
}

/// Finds a value of parameter `p` for `text`: exactly as written first, else the one value that
/// compares numerically equal (so `40` matches `40.0`).
pub(crate) fn find_value(model: &Model, p: usize, text: &str) -> Option<usize> {
    let values = &model.params.get(p)?.values;
    if let Some(i) = values.iter().position(|v| v == text) {
        return Some(i);
    }
    if text.trim().parse::<f64>().is_err() {
        return None;
    }
    let mut numeric = values
        .iter()
        .enumerate()
        .filter(|(_, v)| v.trim().parse::<f64>().is_ok() && crate::expr::compare(v, text) == std::cmp::Ordering::Equal);
    match (numeric.next(), numeric.next()) {
        (Some((i, _)), None) => Some(i),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_from_extensions() {
        assert_eq!(Format::from_path(Path::new("a/b.toml")), Some(Format::Native));
        assert_eq!(Format::from_path(Path::new("b.PICT")), Some(Format::Pict));
        assert_eq!(Format::from_path(Path::new("b.txt")), Some(Format::Pict));
        assert_eq!(Format::from_path(Path::new("b.acts")), Some(Format::Acts));
        assert_eq!(Format::from_path(Path::new("spins_2way.model")), Some(Format::Casa));
        assert_eq!(Format::from_path(Path::new("b")), None);
        assert_eq!(Format::from_path(Path::new("b.csv")), None);
    }

    #[test]
    fn positions_count_characters_and_clamp() {
        let s = Source::new("ab\nçd\n", Path::new("f"));
        assert_eq!(s.position(0), (1, 1));
        assert_eq!(s.position(3), (2, 1));
        assert_eq!(s.position(5), (2, 2), "ç is two bytes, one column");
        assert_eq!(s.position(4), (2, 1), "inside a character: clamped back");
        assert_eq!(s.position(99), (3, 1));
        let e = s.error(5, "boom");
        assert_eq!(e.to_string(), "f:2:2: boom");
    }

    #[test]
    fn read_errors_are_located() {
        let e = read(Path::new("/nonexistent/x.toml"), None).unwrap_err();
        assert_eq!((e.line, e.column), (1, 1));
        assert!(e.message.contains("cannot read"), "{e}");
        let e = read(Path::new("x.unknown"), None).unwrap_err();
        assert!(e.message.contains("format"), "{e}");
    }

    #[test]
    fn splitting_keeps_offsets() {
        assert_eq!(split_trimmed(" a , b c ,d", ','), vec![(1, "a"), (5, "b c"), (10, "d")]);
        assert_eq!(lines("a\r\nb").collect::<Vec<_>>(), vec![(0, "a"), (3, "b")]);
    }
}
