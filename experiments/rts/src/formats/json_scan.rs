//! A structural JSON scanner: walks the top of a big JSON document (objects, keys, arrays) and
//! copies out one array element at a time, so that each element can be parsed alone with serde.
//! It checks only what it needs to find value boundaries (brackets and strings); the element's
//! own syntax is serde's business, which is what lets one broken element be reported and skipped.

use std::io::{self, BufRead};

use super::{FormatError, ReadReport};

/// Largest single value the scanner copies out (a broken string could otherwise swallow the file).
pub const MAX_VALUE_BYTES: usize = 1 << 28;

#[derive(Debug)]
pub enum ScanError {
    Io(io::Error),
    /// The document's structure is broken at `line`; nothing after it can be trusted.
    Syntax {
        line: u64,
        message: String,
    },
}

impl From<io::Error> for ScanError {
    fn from(e: io::Error) -> Self {
        ScanError::Io(e)
    }
}

pub struct JsonScanner<R> {
    input: R,
    line: u64,
}

impl<R: BufRead> JsonScanner<R> {
    pub fn new(input: R) -> Self {
        JsonScanner { input, line: 1 }
    }

    /// The line of the next unread byte (1-based).
    pub fn line(&self) -> u64 {
        self.line
    }

    fn syntax(&self, message: impl Into<String>) -> ScanError {
        ScanError::Syntax {
            line: self.line,
            message: message.into(),
        }
    }

    /// Skips whitespace (and a byte-order mark); returns the next byte without consuming it.
    pub fn peek(&mut self) -> io::Result<Option<u8>> {
        loop {
            let buf = self.input.fill_buf()?;
            if buf.is_empty() {
                return Ok(None);
            }
            let mut i = 0;
            while i < buf.len() {
                match buf[i] {
                    b'\n' => self.line += 1,
                    b' ' | b'\t' | b'\r' => {}
                    // UTF-8 byte-order mark bytes: only ever skipped at the top level.
                    0xEF | 0xBB | 0xBF => {}
                    b => {
                        self.input.consume(i);
                        return Ok(Some(b));
                    }
                }
                i += 1;
            }
            let n = buf.len();
            self.input.consume(n);
        }
    }

    /// Consumes the byte [`JsonScanner::peek`] returned (never a newline).
    pub fn bump(&mut self) {
        self.input.consume(1);
    }

    /// Consumes `expected` as the next non-blank byte.
    pub fn expect(&mut self, expected: u8) -> Result<(), ScanError> {
        match self.peek()? {
            Some(b) if b == expected => {
                self.bump();
                Ok(())
            }
            Some(b) => Err(self.syntax(format!(
                "expected `{}`, found `{}`",
                expected as char, b as char
            ))),
            None => Err(self.syntax(format!(
                "expected `{}`, found the end of the file",
                expected as char
            ))),
        }
    }

    /// Moves to the next element of the array being read: consumes a `,` unless `first`, and
    /// returns the element's first byte (not consumed), or `None` after consuming the closing `]`.
    pub fn next_element(&mut self, first: &mut bool) -> Result<Option<u8>, ScanError> {
        match self.peek()? {
            Some(b']') => {
                self.bump();
                return Ok(None);
            }
            Some(b',') if !*first => self.bump(),
            Some(b) if *first => {
                *first = false;
                return Ok(Some(b));
            }
            Some(b) => {
                return Err(self.syntax(format!(
                    "expected `,` or `]` between array elements, found `{}`",
                    b as char
                )))
            }
            None => return Err(self.syntax("unexpected end of file inside an array")),
        }
        match self.peek()? {
            Some(b) => Ok(Some(b)),
            None => Err(self.syntax("unexpected end of file inside an array")),
        }
    }

    /// Reads an object key and its `:`; the key's raw bytes (quotes included) go to `out`.
    pub fn key(&mut self, out: &mut Vec<u8>) -> Result<(), ScanError> {
        if self.peek()? != Some(b'"') {
            return Err(self.syntax("expected an object key"));
        }
        self.capture(out)?;
        self.expect(b':')
    }

    /// Moves to the next key of the object being read (consuming `,` unless `first`); returns
    /// `false` after consuming the closing `}`. The key goes to `key` as in [`JsonScanner::key`].
    pub fn next_key(&mut self, first: &mut bool, key: &mut Vec<u8>) -> Result<bool, ScanError> {
        match self.peek()? {
            Some(b'}') => {
                self.bump();
                return Ok(false);
            }
            Some(b',') if !*first => self.bump(),
            Some(b'"') if *first => {}
            Some(b) => {
                return Err(self.syntax(format!(
                    "expected an object key, `,` or `}}`, found `{}`",
                    b as char
                )))
            }
            None => return Err(self.syntax("unexpected end of file inside an object")),
        }
        *first = false;
        self.key(key)?;
        Ok(true)
    }

    /// Skips one value.
    pub fn skip(&mut self) -> Result<(), ScanError> {
        self.scan_value(None)
    }

    /// Copies one value (object, array, string or scalar) into `out` (cleared first).
    pub fn capture(&mut self, out: &mut Vec<u8>) -> Result<(), ScanError> {
        out.clear();
        self.scan_value(Some(out))
    }

    fn scan_value(&mut self, mut out: Option<&mut Vec<u8>>) -> Result<(), ScanError> {
        let start_line = self.line;
        let Some(first) = self.peek()? else {
            return Err(self.syntax("expected a value, found the end of the file"));
        };
        let scalar = !matches!(first, b'{' | b'[' | b'"');
        let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
        let mut copied = 0usize;
        loop {
            let buf = self.input.fill_buf()?;
            if buf.is_empty() {
                if scalar {
                    return Ok(());
                }
                return Err(ScanError::Syntax {
                    line: start_line,
                    message: "value never closed before the end of the file".into(),
                });
            }
            let mut i = 0;
            let mut done = false;
            while i < buf.len() {
                let b = buf[i];
                if scalar {
                    if matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\r' | b'\n') {
                        done = true;
                        break;
                    }
                } else if in_string {
                    if escaped {
                        escaped = false;
                    } else if b == b'\\' {
                        escaped = true;
                    } else if b == b'"' {
                        in_string = false;
                        if depth == 0 {
                            i += 1;
                            done = true;
                            break;
                        }
                    }
                } else {
                    match b {
                        b'"' => in_string = true,
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                i += 1;
                                done = true;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                if b == b'\n' {
                    self.line += 1;
                }
                i += 1;
            }
            if let Some(out) = out.as_deref_mut() {
                out.extend_from_slice(&buf[..i]);
            }
            copied += i;
            self.input.consume(i);
            if done {
                return Ok(());
            }
            if copied > MAX_VALUE_BYTES {
                return Err(ScanError::Syntax {
                    line: start_line,
                    message: format!("value larger than {MAX_VALUE_BYTES} bytes"),
                });
            }
        }
    }
}

/// Why scanning stopped: a broken structure (reported as malformed, the rest is skipped), I/O,
/// or a wrong top-level shape (an error).
pub enum ScanOutcome {
    Scan(ScanError),
    Shape(&'static str),
}

impl From<ScanError> for ScanOutcome {
    fn from(e: ScanError) -> Self {
        ScanOutcome::Scan(e)
    }
}

/// Turns a scanning failure into the reader's result: I/O and shape errors stop with an error;
/// a broken structure is reported as malformed and ends the file.
pub fn settle(
    outcome: ScanOutcome,
    file: &str,
    line: u64,
    report: &mut ReadReport,
) -> Result<(), FormatError> {
    match outcome {
        ScanOutcome::Scan(ScanError::Io(source)) => Err(FormatError::Io {
            file: file.to_string(),
            source,
        }),
        ScanOutcome::Shape(message) => Err(FormatError::Shape {
            file: file.to_string(),
            line,
            message: message.into(),
        }),
        ScanOutcome::Scan(ScanError::Syntax { line, message }) => {
            report.add_malformed(line, format!("{message}; the rest of the file is skipped"));
            Ok(())
        }
    }
}

/// The line, within a buffer whose first byte is on `base_line`, of `part` (a sub-slice of it).
pub fn line_of(buf: &[u8], base_line: u64, part: &str) -> u64 {
    let offset = (part.as_ptr() as usize)
        .saturating_sub(buf.as_ptr() as usize)
        .min(buf.len());
    base_line + buf[..offset].iter().filter(|&&b| b == b'\n').count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_elements_and_counts_lines() {
        let text = b"{\"data\" : [\n {\"a\": \"x]}\\\"\"},\n [1, 2],\n 3 ,\"s\"\n]}";
        let mut s = JsonScanner::new(&text[..]);
        s.expect(b'{').unwrap();
        let mut key = Vec::new();
        let mut first = true;
        assert!(s.next_key(&mut first, &mut key).unwrap());
        assert_eq!(key, b"\"data\"");
        s.expect(b'[').unwrap();
        let mut first = true;
        let mut out = Vec::new();
        let mut got = Vec::new();
        while s.next_element(&mut first).unwrap().is_some() {
            let line = s.line();
            s.capture(&mut out).unwrap();
            got.push((line, String::from_utf8(out.clone()).unwrap()));
        }
        assert_eq!(
            got,
            [
                (2, r#"{"a": "x]}\""}"#.to_string()),
                (3, "[1, 2]".into()),
                (4, "3".into()),
                (4, "\"s\"".into())
            ]
        );
        assert!(!s.next_key(&mut false, &mut key).unwrap());
    }

    #[test]
    fn unclosed_values_and_missing_commas_are_errors() {
        let mut s = JsonScanner::new(&b"{\"a\": [1,\n"[..]);
        assert!(matches!(
            s.capture(&mut Vec::new()),
            Err(ScanError::Syntax { line: 1, .. })
        ));
        let mut s = JsonScanner::new(&b"[{} {}]"[..]);
        s.expect(b'[').unwrap();
        let mut first = true;
        s.next_element(&mut first).unwrap();
        s.skip().unwrap();
        assert!(s.next_element(&mut first).is_err());
    }
}
