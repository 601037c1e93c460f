//! Identifiers: the patterns of the service model and the ids the server
//! makes up itself.

use std::sync::OnceLock;

use rand::Rng;
use regex_lite::Regex;

/// A pattern of the service model, anchored at both ends.
pub struct Pattern {
    source: &'static str,
    cell: OnceLock<Regex>,
}

impl Pattern {
    const fn new(source: &'static str) -> Self {
        Self {
            source,
            cell: OnceLock::new(),
        }
    }

    pub fn source(&self) -> &'static str {
        self.source
    }

    pub fn matches(&self, value: &str) -> bool {
        self.cell
            .get_or_init(|| Regex::new(&format!("^(?:{})$", self.source)).expect("valid pattern"))
            .is_match(value)
    }
}

// The model writes classes such as `[a-zA-Z0-9-_]`, where a `-` after a range
// is literal; they are spelled here with the `-` last, which means the same.
pub static MEMORY_ID: Pattern = Pattern::new(
    r"(arn:(aws|aws-cn|aws-us-gov):bedrock-agentcore:[a-z0-9-]+:[0-9]{12}:memory/)?[a-zA-Z][a-zA-Z0-9_-]{0,99}-[a-zA-Z0-9]{10}",
);
pub static ACTOR_ID: Pattern =
    Pattern::new(r"[a-zA-Z0-9][a-zA-Z0-9_/-]*(?::[a-zA-Z0-9_/-]+)*[a-zA-Z0-9_/-]*");
pub static SESSION_ID: Pattern = Pattern::new(r"[a-zA-Z0-9][a-zA-Z0-9_-]*");
pub static EVENT_ID: Pattern = Pattern::new(r"[0-9]+#[a-fA-F0-9]+");
pub static METADATA_TEXT: Pattern = Pattern::new(r"[a-zA-Z0-9\s._:/=+@-]*");

/// A fresh memoryId of the service's shape, e.g. `local-3f9c2a7b1d`.
pub fn new_memory_id() -> String {
    format!("local-{}", random_alphanumeric(10))
}

/// The memory a memoryId names: an ARN and its bare id are the same memory.
pub fn memory_key(memory_id: &str) -> &str {
    memory_id
        .rsplit_once(":memory/")
        .map_or(memory_id, |(_, id)| id)
}

/// `<19-digit zero-padded epoch ms>#<8 hex digits>`: ids sort as strings in
/// the order of their timestamps, as the service's do.
pub fn new_event_id(timestamp_ms: i64) -> String {
    format!("{timestamp_ms:019}#{:08x}", rand::rng().random::<u32>())
}

/// A request id for the `x-amzn-requestid` header.
pub fn new_request_id() -> String {
    let r: u128 = rand::rng().random();
    let h = format!("{r:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

fn random_alphanumeric(len: usize) -> String {
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::rng();
    (0..len)
        .map(|_| CHARS[rng.random_range(0..CHARS.len())] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_ids_match_the_model() {
        assert!(MEMORY_ID.matches(&new_memory_id()));
        assert!(EVENT_ID.matches(&new_event_id(1_756_147_154_000)));
        assert!(new_event_id(1_756_147_154_000).starts_with("0000001756147154000#"));
    }

    #[test]
    fn patterns_follow_the_model() {
        assert!(ACTOR_ID.matches("user-1/team:role_a"));
        assert!(!ACTOR_ID.matches("-leading-dash"));
        assert!(!ACTOR_ID.matches("a::b"));
        assert!(SESSION_ID.matches("thread_1-a"));
        assert!(!SESSION_ID.matches("thread:1"));
        assert!(MEMORY_ID
            .matches("arn:aws:bedrock-agentcore:us-east-1:123456789012:memory/mem-abcdefghij"));
        assert!(!MEMORY_ID.matches("mem-short"));
        assert!(METADATA_TEXT.matches("checkpoint 12:ab/c=d+e@f-g_h."));
        assert!(!METADATA_TEXT.matches("no|pipes"));
    }

    #[test]
    fn an_arn_and_its_id_are_one_memory() {
        let arn = "arn:aws:bedrock-agentcore:us-east-1:123456789012:memory/mem-abcdefghij";
        assert_eq!(memory_key(arn), "mem-abcdefghij");
        assert_eq!(memory_key("mem-abcdefghij"), "mem-abcdefghij");
    }
}
