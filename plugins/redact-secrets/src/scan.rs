//! The secret scanner: known token prefixes, bearer tokens and PEM private-key blocks.

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

fn run_len(bytes: &[u8], from: usize, ok: fn(u8) -> bool) -> usize {
    bytes[from..].iter().take_while(|b| ok(**b)).count()
}

/// Find a PEM private key block starting at `i`; returns its end.
fn private_key_end(text: &str, i: usize) -> Option<usize> {
    let rest = &text[i..];
    let header_end = rest.strip_prefix("-----BEGIN ")?.find("-----")? + "-----BEGIN ".len();
    if !rest[..header_end].ends_with("PRIVATE KEY") {
        return None;
    }
    let after = header_end + 5;
    let end = match rest[after..].find("-----END ") {
        Some(pos) => {
            let tail = &rest[after + pos + "-----END ".len()..];
            after + pos + "-----END ".len() + tail.find("-----").map_or(tail.len(), |p| p + 5)
        }
        None => rest.len(),
    };
    Some(i + end)
}

/// Mask the secrets in `text`. `None` when there were none; else the clean text and the count.
pub fn redact(text: &str) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut count = 0;
    let mut i = 0;
    while i < bytes.len() {
        let boundary = i == 0 || !is_token_byte(bytes[i - 1]);
        let mut hit: Option<(usize, String)> = None;
        if bytes[i] == b'-' {
            if let Some(end) = private_key_end(text, i) {
                hit = Some((end, "[REDACTED PRIVATE KEY]".into()));
            }
        } else if boundary && bytes.len() - i > 7 && bytes[i..i + 7].eq_ignore_ascii_case(b"bearer ") {
            let start = i + 7;
            let n = run_len(bytes, start, is_bearer_byte);
            if n >= 16 {
                hit = Some((start + n, format!("{}[REDACTED]", &text[i..start])));
            }
        } else if boundary {
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
            ("-----BEGIN RSA PRIVATE KEY-----\nMIIE (truncated", Some("[REDACTED PRIVATE KEY]")),
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
