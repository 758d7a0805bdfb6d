//! The secret scanner: known token prefixes, bearer tokens and PEM private-key blocks.
//! Hand-written (no regex), so a fresh instance of a plugin using it starts for free. The
//! redactor (`redact-secrets`) masks what it finds; the guard's `taint` pack asks whether a
//! tool's output carried a secret ([`contains_secret`]).

#![deny(missing_docs)]

/// (prefix, label, minimum length of the part after the prefix)
const PREFIXES: &[(&str, &str, usize)] = &[
    ("sk-ant-", "api-key", 20),
    ("sk-proj-", "api-key", 20),
    ("sk-", "api-key", 20),
    ("github_pat_", "github-token", 30),
    ("ghp_", "github-token", 30),
    ("gho_", "github-token", 30),
    ("ghu_", "github-token", 30),
    ("ghs_", "github-token", 30),
    ("ghr_", "github-token", 30),
    ("glpat-", "gitlab-token", 20),
    ("xoxb-", "slack-token", 10),
    ("xoxp-", "slack-token", 10),
    ("xoxa-", "slack-token", 10),
    ("xoxs-", "slack-token", 10),
    ("AKIA", "aws-access-key", 16),
    ("ASIA", "aws-access-key", 16),
    ("AIza", "google-api-key", 35),
];

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

fn is_bearer_byte(b: u8) -> bool {
    is_token_byte(b) || matches!(b, b'.' | b'~' | b'+' | b'/' | b'=')
}

/// Bytes a PEM private-key body may hold: base64, line breaks and spaces, and the `Proc-Type:` /
/// `DEK-Info:` header fields of legacy encrypted keys. No quote, backslash, `$`, `;`, `&`, `|`,
/// `<`, `>`, parenthesis or brace: a redacted span never holds shell (or JSON) syntax, so
/// masking it cannot turn quoted text into live shell syntax.
fn is_pem_body_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b' ' | b'\t' | b'\r' | b'\n' | b':' | b',' | b'-')
}

fn run_len(bytes: &[u8], from: usize, ok: fn(u8) -> bool) -> usize {
    bytes[from..].iter().take_while(|b| ok(**b)).count()
}

/// First bytes of anything the scanner looks for: `-` (PEM), `b`/`B` (bearer), the first
/// letters of the token prefixes. Every other byte is skipped with one table lookup.
const CANDIDATE: [bool; 256] = {
    let mut t = [false; 256];
    t[b'-' as usize] = true;
    t[b'b' as usize] = true;
    t[b'B' as usize] = true;
    let mut i = 0;
    while i < PREFIXES.len() {
        t[PREFIXES[i].0.as_bytes()[0] as usize] = true;
        i += 1;
    }
    t
};

const BEGIN: &str = "-----BEGIN ";
const DASHES: &str = "-----";

/// Whether a token prefix can start with these two bytes: most text that starts a word with
/// `s`, `g`, `x` or `A` is ruled out here, before the prefix list is walked.
fn plausible_prefix(first: u8, second: u8) -> bool {
    matches!((first, second), (b's', b'k') | (b'g', b'i' | b'h' | b'l') | (b'x', b'o') | (b'A', b'K' | b'S' | b'I'))
}

/// Find a PEM private key block starting at `i` and return its end. The header is
/// `-----BEGIN <LABEL>PRIVATE KEY-----` (label: capitals, digits, spaces). The block runs over
/// body bytes to the matching `-----END <same label>-----`; without one (a truncated paste) it
/// ends with the last body byte that is not white space.
fn private_key_end(text: &str, i: usize) -> Option<usize> {
    let rest = &text.as_bytes()[i..];
    let after_begin = rest.strip_prefix(BEGIN.as_bytes())?;
    let label_len = after_begin.iter().take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || **b == b' ').count();
    let label = &after_begin[..label_len];
    if !label.ends_with(b"PRIVATE KEY") || !after_begin[label_len..].starts_with(DASHES.as_bytes()) {
        return None;
    }
    let body_start = BEGIN.len() + label_len + DASHES.len();
    let mut j = body_start;
    while j < rest.len() && is_pem_body_byte(rest[j]) {
        if rest[j..].starts_with(b"-----END ") {
            let tail = &rest[j + "-----END ".len()..];
            if tail.starts_with(label) && tail[label.len()..].starts_with(DASHES.as_bytes()) {
                return Some(i + j + "-----END ".len() + label.len() + DASHES.len());
            }
        }
        j += 1;
    }
    while j > body_start && rest[j - 1].is_ascii_whitespace() {
        j -= 1;
    }
    Some(i + j)
}

/// Mask the secrets in `text`. `None` when there were none; else the clean text and the count.
pub fn redact(text: &str) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut count = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !CANDIDATE[b as usize] {
            i += 1;
            continue;
        }
        let boundary = i == 0 || !is_token_byte(bytes[i - 1]);
        let mut hit: Option<(usize, String)> = None;
        if b == b'-' {
            if let Some(end) = private_key_end(text, i) {
                hit = Some((end, "[REDACTED PRIVATE KEY]".into()));
            }
        } else if boundary && (b == b'b' || b == b'B') {
            if bytes.len() - i > 7 && matches!(bytes[i + 1], b'e' | b'E') && bytes[i..i + 7].eq_ignore_ascii_case(b"bearer ") {
                let start = i + 7;
                let n = run_len(bytes, start, is_bearer_byte);
                if n >= 16 {
                    hit = Some((start + n, format!("{}[REDACTED]", &text[i..start])));
                }
            }
        } else if boundary && plausible_prefix(b, bytes.get(i + 1).copied().unwrap_or(0)) {
            for (prefix, label, min) in PREFIXES {
                if bytes[i..].starts_with(prefix.as_bytes()) {
                    let n = run_len(bytes, i + prefix.len(), is_token_byte);
                    if n >= *min {
                        hit = Some((i + prefix.len() + n, format!("[REDACTED:{label}]")));
                    }
                    break;
                }
            }
        }
        match hit {
            Some((end, replacement)) => {
                if out.capacity() == 0 {
                    out.reserve(text.len());
                }
                out.push_str(&text[copied..i]);
                out.push_str(&replacement);
                copied = end;
                i = end;
                count += 1;
            }
            None => i += 1,
        }
    }
    if count == 0 {
        return None;
    }
    out.push_str(&text[copied..]);
    Some((out, count))
}

/// What the redactor leaves where it masked a secret: a later hook of the chain sees this.
pub const MASK: &str = "[REDACTED";

/// Whether `text` holds a secret the scanner knows, or one the redactor already masked.
pub fn contains_secret(text: &str) -> bool {
    text.contains(MASK) || redact(text).is_some()
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn table() {
        let key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----";
        for (input, want) in [
            ("token ghp_0123456789abcdefghijABCDEFGHIJ0123 end", Some("token [REDACTED:github-token] end")),
            ("Authorization: bearer eyJhbGciOiJIUzI1NiJ9.e30.abc", Some("Authorization: bearer [REDACTED]")),
            (&format!("here:\n{key}\nthanks") as &str, Some("here:\n[REDACTED PRIVATE KEY]\nthanks")),
            ("xoxb-1234567890-abc and sk-ant-api03-abcdefghijklmnopqrstu", Some("[REDACTED:slack-token] and [REDACTED:api-key]")),
            ("-----BEGIN RSA PRIVATE KEY-----\nMIIE (truncated", Some("[REDACTED PRIVATE KEY] (truncated")),
            ("-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,AB12\n\nMIIE\n-----END RSA PRIVATE KEY-----\nok", Some("[REDACTED PRIVATE KEY]\nok")),
            // The END line must carry the BEGIN line's label (else the block runs on, as a
            // truncated one); a body stops at any shell syntax.
            ("-----BEGIN EC PRIVATE KEY-----\nMHc\n-----END RSA PRIVATE KEY-----\n", Some("[REDACTED PRIVATE KEY]\n")),
            ("echo -----BEGIN PRIVATE KEY----- '-----END K-----; rm -rf ~; #'", Some("echo [REDACTED PRIVATE KEY] '-----END K-----; rm -rf ~; #'")),
            ("x='-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----'; y", Some("x='[REDACTED PRIVATE KEY]'; y")),
            ("-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----", None),
            ("task-sk-12345678901234567890123", None),
            ("sk-short", None),
            ("Bearer short", None),
            ("plain ünïcode text — fine", None),
        ] {
            assert_eq!(redact(input).map(|(s, _)| s).as_deref(), want, "input: {input}");
        }
        assert_eq!(redact("AKIAABCDEFGHIJKLMNOP AKIAABCDEFGHIJKLMNOP").unwrap().1, 2);
    }
}
