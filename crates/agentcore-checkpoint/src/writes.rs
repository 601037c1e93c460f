//! Pending writes of a checkpoint, as the contract orders them: one per
//! (task, idx), the first for ordinary writes and the last for the special
//! negative indices, sorted by (task path, task id, idx).

use std::collections::HashMap;
use std::sync::Arc;

use crate::record::{Typed, WritesRecord};

#[derive(Debug, Clone, PartialEq)]
pub struct PendingWrite {
    pub task_id: String,
    pub channel: String,
    pub value: Typed,
    pub task_path: String,
}

pub fn resolve(records: &[Arc<WritesRecord>]) -> Vec<PendingWrite> {
    let mut chosen: HashMap<(&str, i64), (u64, &WritesRecord, usize)> = HashMap::new();
    for record in records {
        for (i, write) in record.writes.iter().enumerate() {
            let key = (record.task_id.as_str(), write.idx);
            let replace = match chosen.get(&key) {
                None => true,
                Some((seq, _, _)) if write.idx >= 0 => record.seq < *seq,
                Some((seq, _, _)) => record.seq > *seq,
            };
            if replace {
                chosen.insert(key, (record.seq, record, i));
            }
        }
    }
    let mut writes: Vec<_> = chosen.into_values().collect();
    writes.sort_by(|(_, a, i), (_, b, j)| {
        (a.task_path.as_str(), a.task_id.as_str(), a.writes[*i].idx).cmp(&(
            b.task_path.as_str(),
            b.task_id.as_str(),
            b.writes[*j].idx,
        ))
    });
    writes
        .into_iter()
        .map(|(_, r, i)| PendingWrite {
            task_id: r.task_id.clone(),
            channel: r.writes[i].channel.clone(),
            value: r.writes[i].value.clone(),
            task_path: r.task_path.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::WriteEntry;
    use bytes::Bytes;

    fn record(task: &str, path: &str, seq: u64, writes: &[(i64, &str, &str)]) -> Arc<WritesRecord> {
        Arc::new(WritesRecord {
            actor: "a".into(),
            thread_id: "t".into(),
            checkpoint_ns: "".into(),
            checkpoint_id: "c".into(),
            task_id: task.into(),
            task_path: path.into(),
            seq,
            writes: writes
                .iter()
                .map(|(idx, ch, v)| WriteEntry {
                    idx: *idx,
                    channel: ch.to_string(),
                    value: Typed {
                        kind: "json".into(),
                        data: Bytes::copy_from_slice(v.as_bytes()),
                    },
                })
                .collect(),
        })
    }

    fn values(w: &[PendingWrite]) -> Vec<(&str, &str, &[u8])> {
        w.iter()
            .map(|w| (w.task_id.as_str(), w.channel.as_str(), &w.value.data[..]))
            .collect()
    }

    #[test]
    fn first_write_wins_and_special_channels_overwrite() {
        let records = [
            record(
                "t1",
                "",
                2,
                &[(0, "a", "second"), (-3, "__interrupt__", "second")],
            ),
            record(
                "t1",
                "",
                1,
                &[(0, "a", "first"), (-3, "__interrupt__", "first")],
            ),
        ];
        let w = resolve(&records);
        assert_eq!(
            values(&w),
            vec![
                ("t1", "__interrupt__", &b"second"[..]),
                ("t1", "a", &b"first"[..])
            ]
        );
    }

    #[test]
    fn sorted_by_path_then_task_then_idx() {
        let records = [
            record("b", "", 1, &[(1, "y", "1"), (0, "x", "0")]),
            record("a", "~z", 2, &[(0, "z", "2")]),
        ];
        let order: Vec<_> = resolve(&records)
            .iter()
            .map(|w| w.channel.clone())
            .collect();
        assert_eq!(order, ["x", "y", "z"]);
    }
}
