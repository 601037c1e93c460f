//! Records too large for one event, split into `part` events and joined
//! again on read.
//!
//! A split record is written as its parts first, then one `head` event that
//! names them (count and digest). Readers index a record only once its head
//! and every part are in, and the digest matches, so a reader never sees a
//! partial record, and a put killed half-way leaves parts that no head
//! names: invisible, and removed with the thread.

use std::collections::HashMap;

use bytes::{Bytes, BytesMut};

use crate::record::{self, Encoding, Foreign, Packed, Record};

/// Room left in each event for the JSON around the data, the ids, the
/// metadata and the SDK's own fields.
const ENVELOPE_BYTES: usize = 4096;
/// The smallest request-size limit accepted.
pub const MIN_EVENT_BYTES: usize = 16 * 1024;

/// How many raw bytes go into one part so that, base64-encoded in its
/// envelope, a part stays under `max_event_bytes`.
pub fn part_len(max_event_bytes: usize) -> usize {
    (max_event_bytes.max(MIN_EVENT_BYTES) - ENVELOPE_BYTES) / 4 * 3
}

/// Whether a packed record fits one event.
pub fn fits(packed: &Packed, max_event_bytes: usize) -> bool {
    packed.stored_len() + ENVELOPE_BYTES <= max_event_bytes.max(MIN_EVENT_BYTES)
}

/// The slices of a packed record, each small enough for one event.
pub fn split(packed: &Packed, max_event_bytes: usize) -> Vec<&[u8]> {
    packed.bytes.chunks(part_len(max_event_bytes)).collect()
}

struct Head {
    encoding: Encoding,
    parts: usize,
    sha256: String,
    event_id: String,
}

/// A record joined from its parts, and the events that held them.
pub type Joined = (Result<Record, Foreign>, Vec<String>);

/// Parts and heads seen so far, until they make whole records.
#[derive(Default)]
pub struct Assembler {
    heads: HashMap<String, Head>,
    parts: HashMap<String, HashMap<usize, (Bytes, String)>>,
}

impl Assembler {
    pub fn part(
        &mut self,
        key: String,
        index: usize,
        data: Bytes,
        event_id: &str,
    ) -> Option<Joined> {
        let parts = self.parts.entry(key.clone()).or_default();
        parts.insert(index, (data, event_id.to_string()));
        self.complete(&key)
    }

    pub fn head(
        &mut self,
        key: String,
        encoding: Encoding,
        parts: usize,
        sha256: String,
        event_id: &str,
    ) -> Option<Joined> {
        let head = Head {
            encoding,
            parts,
            sha256,
            event_id: event_id.to_string(),
        };
        self.heads.insert(key.clone(), head);
        self.complete(&key)
    }

    /// The record, once its head and all its parts are in.
    fn complete(&mut self, key: &str) -> Option<Joined> {
        let head = self.heads.get(key)?;
        let parts = self.parts.get(key)?;
        if (0..head.parts).any(|i| !parts.contains_key(&i)) {
            return None;
        }
        let head = self.heads.remove(key).expect("present");
        let mut parts = self.parts.remove(key).expect("present");
        let mut joined = BytesMut::new();
        let mut events = vec![head.event_id];
        for i in 0..head.parts {
            let (data, event_id) = parts.remove(&i).expect("present");
            joined.extend_from_slice(&data);
            events.push(event_id);
        }
        if record::digest_hex(&joined) != head.sha256 {
            let corrupt = Err(Foreign::Corrupt("parts do not match their digest"));
            return Some((corrupt, events));
        }
        Some((record::unpack(head.encoding, &joined), events))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{decode, pack, Item, WriteEntry, WritesRecord};
    use crate::record::{Record, Typed};

    fn big_record(len: usize) -> Record {
        // Incompressible bytes, so the split is exercised.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let data: Vec<u8> = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        Record::Writes(WritesRecord {
            actor: "a".into(),
            thread_id: "t".into(),
            checkpoint_ns: "".into(),
            checkpoint_id: "c".into(),
            task_id: "task".into(),
            task_path: "".into(),
            seq: 1,
            writes: vec![WriteEntry {
                idx: 0,
                channel: "big".into(),
                value: Typed {
                    kind: "bytes".into(),
                    data: data.into(),
                },
            }],
        })
    }

    fn items(record: &Record, max: usize) -> (Vec<Item>, Item) {
        let packed = pack(record, true);
        assert!(!fits(&packed, max));
        let slices = split(&packed, max);
        let parts = slices
            .iter()
            .enumerate()
            .map(|(i, s)| decode(&record::part("k", i, s)).unwrap())
            .collect();
        (
            parts,
            decode(&record::head("k", &packed, slices.len())).unwrap(),
        )
    }

    fn feed(asm: &mut Assembler, item: Item) -> Option<Result<Record, Foreign>> {
        let joined = match item {
            Item::Part { key, index, data } => asm.part(key, index, data, "e"),
            Item::Head {
                key,
                encoding,
                parts,
                sha256,
            } => asm.head(key, encoding, parts, sha256, "e"),
            Item::Record(_) => panic!("not split"),
        };
        joined.map(|(record, _)| record)
    }

    #[test]
    fn parts_stay_under_the_limit_and_join_in_any_order() {
        let record = big_record(200_000);
        let max = 64 * 1024;
        let packed = pack(&record, true);
        for slice in split(&packed, max) {
            let stored = slice.len().div_ceil(3) * 4;
            assert!(stored + ENVELOPE_BYTES <= max);
        }
        let (mut parts, head) = items(&record, max);
        assert!(parts.len() >= 4);
        // Newest first, as a reader sees them: the head, then parts backwards.
        let mut asm = Assembler::default();
        assert!(feed(&mut asm, head).is_none());
        parts.reverse();
        let last = parts.pop().unwrap();
        for p in parts {
            assert!(
                feed(&mut asm, p).is_none(),
                "incomplete until the last part"
            );
        }
        assert_eq!(feed(&mut asm, last).unwrap().unwrap(), record);
    }

    #[test]
    fn parts_without_their_head_never_make_a_record() {
        let (parts, _head) = items(&big_record(100_000), MIN_EVENT_BYTES);
        let mut asm = Assembler::default();
        for p in parts {
            assert!(feed(&mut asm, p).is_none());
        }
    }

    #[test]
    fn a_part_that_does_not_match_the_digest_is_corrupt() {
        let (mut parts, head) = items(&big_record(100_000), MIN_EVENT_BYTES);
        if let Item::Part { data, .. } = &mut parts[1] {
            let mut bad = data.to_vec();
            bad[0] ^= 1;
            *data = bad.into();
        }
        let mut asm = Assembler::default();
        feed(&mut asm, head);
        let results: Vec<_> = parts
            .into_iter()
            .filter_map(|p| feed(&mut asm, p))
            .collect();
        assert!(matches!(results.as_slice(), [Err(Foreign::Corrupt(_))]));
    }

    #[test]
    fn repetitive_records_are_compressed() {
        let mut record = big_record(0);
        if let Record::Writes(w) = &mut record {
            w.writes[0].value.data = "{\"role\":\"user\",\"content\":\"hello\"},"
                .repeat(500)
                .into_bytes()
                .into();
        }
        let packed = pack(&record, true);
        assert_eq!(packed.encoding, Encoding::MsgpackZstd);
        assert!(packed.bytes.len() * 10 < pack(&record, false).bytes.len());
        assert_eq!(
            record::unpack(packed.encoding, &packed.bytes).unwrap(),
            record
        );
    }
}
