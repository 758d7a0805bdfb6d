//! One thing wrong with a file hookhost read: the field it is about and what to do.
//!
//! Config files, peer hook files and bundle manifests report every problem at once, each as a
//! [`Problem`]; a caller that needs the field (a test, an editor integration, `hookhost check
//! --json`) reads [`Problem::field`] instead of parsing the rendered text.

use std::fmt;

/// A problem with one field of a file (or with the file as a whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Where in the file, as a path of keys and indexes (`hooks[0].executor.fuel`,
    /// `trust.keys[1].public_key`); empty when the problem is the file's as a whole (it is not
    /// valid TOML, it is no hook file hookhost reads).
    pub field: String,
    /// What is wrong, and the fix.
    pub message: String,
}

impl Problem {
    /// A problem with `field`.
    pub fn at(field: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem { field: field.into(), message: message.into() }
    }

    /// A problem with the file as a whole.
    pub fn file(message: impl Into<String>) -> Problem {
        Problem { field: String::new(), message: message.into() }
    }
}

/// Problems as a bulleted list, one per line, each line starting `\n  - `: what follows a
/// file's "N problems:".
pub fn bulleted(problems: &[Problem]) -> String {
    problems.iter().map(|p| format!("\n  - {p}")).collect()
}

/// `field: message`, or the message alone for the file as a whole.
impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Problem;

    #[test]
    fn renders_field_then_message_and_nests() {
        let p = Problem::at("fuel", "must be greater than 0");
        assert_eq!(p.to_string(), "fuel: must be greater than 0");
        assert_eq!(Problem::file("invalid JSON: EOF").to_string(), "invalid JSON: EOF");
        assert_eq!(p.field, "fuel");
        assert_eq!(super::bulleted(&[Problem::file("a"), Problem::at("b", "c")]), "\n  - a\n  - b: c");
    }
}
