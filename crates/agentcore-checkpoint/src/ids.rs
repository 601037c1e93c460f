//! How LangGraph ids map onto AgentCore ids.
//!
//! AgentCore's ids are narrow (`sessionId` is at most 100 characters of
//! `[a-zA-Z0-9][a-zA-Z0-9-_]*`), LangGraph's are any string. The mapping is
//! injective: an id that fits is used as it is, anything else becomes `h_`
//! and a 128-bit digest, a form no id used as it is can take. Records keep
//! the original strings, and readers drop records whose strings differ, so
//! even a digest collision could not mix two threads.
//!
//! A thread's root namespace is the session `T`; any other namespace is the
//! session `T__<digest of the namespace>`. Every session of a thread thus
//! starts with `T`, which is how a thread's namespaces are found.

use sha2::{Digest, Sha256};

const HASHED: &str = "h_";
const HASH_HEX: usize = 32;
const MAX_PLAIN_THREAD: usize = 64;
const MAX_PLAIN_ACTOR: usize = 200;
const NAMESPACE_SEPARATOR: &str = "__";

fn digest_hex(kind: &str, value: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(kind.as_bytes());
    hasher.update([0]);
    hasher.update(value.as_bytes());
    hasher.finalize()[..HASH_HEX / 2]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The AgentCore actorId for a LangGraph actor id.
pub fn actor_id(actor: &str) -> String {
    if is_plain_actor(actor) {
        actor.to_string()
    } else {
        format!("{HASHED}{}", digest_hex("actor", actor))
    }
}

/// `[a-zA-Z0-9][a-zA-Z0-9-_/]*(?::[a-zA-Z0-9-_/]+)*[a-zA-Z0-9-_/]*`: a `:`
/// is neither first nor last nor doubled.
fn is_plain_actor(actor: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '/');
    (1..=MAX_PLAIN_ACTOR).contains(&actor.len())
        && !actor.starts_with(HASHED)
        && actor.starts_with(|c: char| c.is_ascii_alphanumeric())
        && actor
            .split(':')
            .all(|part| !part.is_empty() && part.chars().all(word))
}

/// The part of every sessionId of a thread.
pub fn thread_part(thread_id: &str) -> String {
    let plain = (1..=MAX_PLAIN_THREAD).contains(&thread_id.len())
        && thread_id.starts_with(|c: char| c.is_ascii_alphanumeric())
        && thread_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-');
    if plain {
        thread_id.to_string()
    } else {
        format!("{HASHED}{}", digest_hex("thread", thread_id))
    }
}

/// The AgentCore sessionId of a thread's namespace.
pub fn session_id(thread_id: &str, checkpoint_ns: &str) -> String {
    format!(
        "{}{}",
        thread_part(thread_id),
        namespace_part(checkpoint_ns)
    )
}

/// What follows the thread part in a sessionId: nothing for the root
/// namespace.
fn namespace_part(checkpoint_ns: &str) -> String {
    if checkpoint_ns.is_empty() {
        String::new()
    } else {
        format!(
            "{NAMESPACE_SEPARATOR}{}",
            digest_hex("namespace", checkpoint_ns)
        )
    }
}

/// Whether a sessionId (of any thread) holds the given namespace.
pub fn session_in_namespace(session_id: &str, checkpoint_ns: &str) -> bool {
    let thread_len = if session_id.starts_with(HASHED) {
        HASHED.len() + HASH_HEX
    } else {
        session_id
            .find(NAMESPACE_SEPARATOR)
            .unwrap_or(session_id.len())
    };
    session_id.get(thread_len..) == Some(namespace_part(checkpoint_ns).as_str())
}

/// Whether a sessionId holds one of the namespaces of the thread whose
/// `thread_part` is given.
pub fn session_of_thread(session_id: &str, thread_part: &str) -> bool {
    session_id
        .strip_prefix(thread_part)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(NAMESPACE_SEPARATOR))
}

/// Milliseconds since the epoch embedded in a UUID v6 (LangGraph's
/// checkpoint ids), if the id is one.
pub fn uuid6_millis(id: &str) -> Option<i64> {
    let b = id.as_bytes();
    if b.len() != 36
        || b[8] != b'-'
        || b[13] != b'-'
        || b[14] != b'6'
        || b[18] != b'-'
        || b[23] != b'-'
    {
        return None;
    }
    let hex = |s: &str| u64::from_str_radix(s, 16).ok();
    let high = hex(&id[0..8])?;
    let mid = hex(&id[9..13])?;
    let low = hex(&id[15..18])?;
    let intervals = (high << 28) | (mid << 12) | low; // 100 ns since 1582-10-15
    const GREGORIAN_TO_UNIX: u64 = 0x01B2_1DD2_1381_4000;
    intervals
        .checked_sub(GREGORIAN_TO_UNIX)
        .map(|t| (t / 10_000) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_ids_are_kept_and_others_hashed() {
        assert_eq!(actor_id("user-1/team:admin"), "user-1/team:admin");
        assert!(actor_id("a::b").starts_with("h_"));
        assert!(actor_id("émile").starts_with("h_"));
        assert!(
            actor_id("h_looks_hashed").starts_with("h_")
                && actor_id("h_looks_hashed") != "h_looks_hashed"
        );
        assert_eq!(session_id("thread-1", ""), "thread-1");
        assert!(session_id("thread_1", "").starts_with("h_"));
        assert_eq!(session_id(&"x".repeat(64), "").len(), 64);
        assert!(session_id(&"x".repeat(65), "").starts_with("h_"));
    }

    #[test]
    fn the_mapping_is_injective_on_tricky_ids() {
        let ids = [
            "a",
            "a:b",
            "a|b",
            "a_b",
            "A",
            "a-b",
            "ünï",
            "",
            "h_x",
            "a__b",
            &"y".repeat(1000),
        ];
        let mut seen = std::collections::HashSet::new();
        for thread in ids {
            for ns in ["", "child", "parent:task|child:t2"] {
                assert!(seen.insert(session_id(thread, ns)), "{thread:?} {ns:?}");
            }
        }
    }

    #[test]
    fn session_ids_fit_the_service() {
        for thread in ["t", &"y".repeat(64), &"z".repeat(1000), "x:y|z"] {
            for ns in ["", &"n".repeat(1000)] {
                let s = session_id(thread, ns);
                assert!(
                    s.len() <= 100
                        && s.chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                );
            }
        }
    }

    #[test]
    fn namespaces_belong_to_their_thread_only() {
        let t = thread_part("abc");
        assert!(session_of_thread(&session_id("abc", ""), &t));
        assert!(session_of_thread(&session_id("abc", "child:1"), &t));
        assert!(!session_of_thread(&session_id("abc-d", ""), &t));
        assert!(!session_of_thread(&session_id("ab", "x"), &t));
    }

    #[test]
    fn sessions_tell_their_namespace() {
        for thread in ["abc", "a:b", &"q".repeat(300)] {
            assert!(session_in_namespace(&session_id(thread, ""), ""));
            assert!(session_in_namespace(
                &session_id(thread, "child:1"),
                "child:1"
            ));
            assert!(!session_in_namespace(&session_id(thread, "child:1"), ""));
            assert!(!session_in_namespace(&session_id(thread, ""), "child:1"));
        }
        assert!(!session_in_namespace("h_short", ""));
    }

    #[test]
    fn reads_the_time_of_a_uuid6() {
        // 2025-01-01T00:00:00.123Z in 100 ns intervals since 1582-10-15.
        let t: u64 = 1_735_689_600_123 * 10_000 + 0x01B2_1DD2_1381_4000;
        let id = format!(
            "{:08x}-{:04x}-6{:03x}-8000-000000000000",
            t >> 28,
            (t >> 12) & 0xffff,
            t & 0xfff
        );
        assert_eq!(uuid6_millis(&id), Some(1_735_689_600_123));
        assert_eq!(uuid6_millis("not-a-uuid"), None);
        assert_eq!(uuid6_millis("1ef7d1b2-6b5c-4a10-8000-000000000000"), None);
    }
}
