//! The constraints of the service model (lengths, patterns, counts and
//! enums), each violation reported as a ValidationException naming the field.

use std::collections::BTreeMap;

use crate::error::ApiError;
use crate::ids::{Pattern, ACTOR_ID, EVENT_ID, MEMORY_ID, METADATA_TEXT, SESSION_ID};
use crate::model::{MetadataFilter, MetadataValue, PayloadItem};

pub const MAX_PAYLOAD_ITEMS: usize = 100;
pub const MAX_METADATA_ENTRIES: usize = 15;
pub const MAX_METADATA_FILTERS: usize = 5;
pub const MAX_CONVERSATIONAL_TEXT: usize = 100_000;
const ROLES: [&str; 4] = ["ASSISTANT", "USER", "TOOL", "OTHER"];
const OPERATORS: [&str; 3] = ["EQUALS_TO", "EXISTS", "NOT_EXISTS"];
/// The latest timestamp accepted: 9999-12-31T23:59:59Z.
const MAX_EPOCH_SECONDS: f64 = 253_402_300_799.0;

type Result<T = ()> = std::result::Result<T, ApiError>;

pub fn required<'a, T>(field: &str, value: &'a Option<T>) -> Result<&'a T> {
    value
        .as_ref()
        .ok_or_else(|| ApiError::field(field, "Member must not be null"))
}

fn text(field: &str, value: &str, min: usize, max: usize, pattern: &Pattern) -> Result {
    let len = value.chars().count();
    if len < min {
        return Err(ApiError::field(
            field,
            format!("Member must have length greater than or equal to {min}"),
        ));
    }
    if len > max {
        return Err(ApiError::field(
            field,
            format!("Member must have length less than or equal to {max}"),
        ));
    }
    if !pattern.matches(value) {
        return Err(ApiError::field(
            field,
            format!(
                "Member must satisfy regular expression pattern: {}",
                pattern.source()
            ),
        ));
    }
    Ok(())
}

pub fn memory_id(value: &str) -> Result {
    text("memoryId", value, 12, usize::MAX, &MEMORY_ID)
}

pub fn actor_id(value: &str) -> Result {
    text("actorId", value, 1, 255, &ACTOR_ID)
}

pub fn session_id(value: &str) -> Result {
    text("sessionId", value, 1, 100, &SESSION_ID)
}

pub fn branch_name(field: &str, value: &str) -> Result {
    text(field, value, 1, 100, &SESSION_ID)
}

pub fn event_id(field: &str, value: &str) -> Result {
    text(field, value, 1, usize::MAX, &EVENT_ID)
}

/// `maxResults`: 1 to 100, 20 when absent.
pub fn max_results(value: Option<i64>) -> Result<usize> {
    match value {
        None => Ok(20),
        Some(n) if n < 1 => Err(ApiError::field(
            "maxResults",
            "Member must have value greater than or equal to 1",
        )),
        Some(n) if n > 100 => Err(ApiError::field(
            "maxResults",
            "Member must have value less than or equal to 100",
        )),
        Some(n) => Ok(n as usize),
    }
}

/// Epoch seconds with a fraction, kept to the millisecond.
pub fn timestamp_ms(value: Option<f64>) -> Result<i64> {
    let seconds = *required("eventTimestamp", &value)?;
    if !seconds.is_finite() || !(0.0..=MAX_EPOCH_SECONDS).contains(&seconds) {
        return Err(ApiError::field(
            "eventTimestamp",
            "Member must be a timestamp between 1970 and 9999",
        ));
    }
    Ok((seconds * 1000.0).round() as i64)
}

pub fn payload(items: &[PayloadItem]) -> Result {
    if items.len() > MAX_PAYLOAD_ITEMS {
        return Err(ApiError::field(
            "payload",
            format!("Member must have length less than or equal to {MAX_PAYLOAD_ITEMS}"),
        ));
    }
    items
        .iter()
        .enumerate()
        .try_for_each(|(i, item)| payload_item(&format!("payload.{}", i + 1), item))
}

fn payload_item(field: &str, item: &PayloadItem) -> Result {
    let set = [
        item.conversational.is_some(),
        item.blob.is_some(),
        item.json.is_some(),
    ];
    if set.iter().filter(|s| **s).count() != 1 {
        return Err(ApiError::field(
            field,
            "Member must set exactly one of conversational, blob, json",
        ));
    }
    if let Some(c) = &item.conversational {
        let text = c.content.as_ref().and_then(|c| c.text.as_deref());
        let text = required(&format!("{field}.conversational.content.text"), &text)?;
        let len = text.chars().count();
        if !(1..=MAX_CONVERSATIONAL_TEXT).contains(&len) {
            return Err(ApiError::field(
                &format!("{field}.conversational.content.text"),
                format!("Member must have length between 1 and {MAX_CONVERSATIONAL_TEXT}"),
            ));
        }
        let role = required(&format!("{field}.conversational.role"), &c.role)?;
        one_of(&format!("{field}.conversational.role"), role, &ROLES)?;
    }
    if let Some(json) = &item.json {
        required(&format!("{field}.json.content"), &json.content)?;
    }
    Ok(())
}

/// Checks the metadata map and flattens it to key -> string value.
pub fn metadata(map: Option<BTreeMap<String, MetadataValue>>) -> Result<BTreeMap<String, String>> {
    let map = map.unwrap_or_default();
    if map.len() > MAX_METADATA_ENTRIES {
        return Err(ApiError::field(
            "metadata",
            format!("Member must have length less than or equal to {MAX_METADATA_ENTRIES}"),
        ));
    }
    map.into_iter()
        .map(|(key, value)| {
            metadata_key("metadata", &key)?;
            let value = metadata_value(&format!("metadata.{key}"), value)?;
            Ok((key, value))
        })
        .collect()
}

fn metadata_key(field: &str, key: &str) -> Result {
    text(&format!("{field}.key"), key, 1, 128, &METADATA_TEXT)
}

fn metadata_value(field: &str, value: MetadataValue) -> Result<String> {
    let value = value
        .string_value
        .ok_or_else(|| ApiError::field(field, "Member must set stringValue"))?;
    text(
        &format!("{field}.stringValue"),
        &value,
        0,
        256,
        &METADATA_TEXT,
    )?;
    Ok(value)
}

/// A checked metadata filter expression.
#[derive(Debug, Clone)]
pub enum MetadataCondition {
    Equals(String, String),
    Exists(String),
    NotExists(String),
}

impl MetadataCondition {
    pub fn matches(&self, metadata: &BTreeMap<String, String>) -> bool {
        match self {
            Self::Equals(k, v) => metadata.get(k) == Some(v),
            Self::Exists(k) => metadata.contains_key(k),
            Self::NotExists(k) => !metadata.contains_key(k),
        }
    }
}

pub fn metadata_filters(filters: &[MetadataFilter]) -> Result<Vec<MetadataCondition>> {
    const FIELD: &str = "filter.eventMetadata";
    if filters.is_empty() || filters.len() > MAX_METADATA_FILTERS {
        return Err(ApiError::field(
            FIELD,
            format!("Member must have length between 1 and {MAX_METADATA_FILTERS}"),
        ));
    }
    filters.iter().map(metadata_filter).collect()
}

fn metadata_filter(filter: &MetadataFilter) -> Result<MetadataCondition> {
    const FIELD: &str = "filter.eventMetadata";
    let key = filter.left.as_ref().and_then(|l| l.metadata_key.clone());
    let key = required(&format!("{FIELD}.left.metadataKey"), &key)?.clone();
    metadata_key(&format!("{FIELD}.left"), &key)?;
    let operator = required(&format!("{FIELD}.operator"), &filter.operator)?;
    one_of(&format!("{FIELD}.operator"), operator, &OPERATORS)?;
    Ok(match operator.as_str() {
        "EQUALS_TO" => {
            let value = filter.right.as_ref().and_then(|r| r.metadata_value.clone());
            let value = required(&format!("{FIELD}.right.metadataValue"), &value)?.clone();
            let value = metadata_value(&format!("{FIELD}.right.metadataValue"), value)?;
            MetadataCondition::Equals(key, value)
        }
        "EXISTS" => MetadataCondition::Exists(key),
        _ => MetadataCondition::NotExists(key),
    })
}

fn one_of(field: &str, value: &str, allowed: &[&str]) -> Result {
    if allowed.contains(&value) {
        Ok(())
    } else {
        Err(ApiError::field(
            field,
            format!(
                "Member must satisfy enum value set: [{}]",
                allowed.join(", ")
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_results_defaults_to_twenty_and_is_bounded() {
        assert_eq!(max_results(None).unwrap(), 20);
        assert_eq!(max_results(Some(100)).unwrap(), 100);
        assert_eq!(
            max_results(Some(0)).unwrap_err().field.as_deref(),
            Some("maxResults")
        );
        assert!(max_results(Some(101)).is_err());
    }

    #[test]
    fn timestamps_keep_milliseconds() {
        assert_eq!(
            timestamp_ms(Some(1_756_147_154.123)).unwrap(),
            1_756_147_154_123
        );
        assert!(timestamp_ms(Some(-1.0)).is_err());
        assert!(timestamp_ms(None).is_err());
    }

    #[test]
    fn errors_name_the_field_and_not_the_value() {
        let err = session_id("secret:value").unwrap_err();
        assert_eq!(err.field.as_deref(), Some("sessionId"));
        assert!(err.message.contains("sessionId"));
        assert!(!err.message.contains("secret"));
    }

    #[test]
    fn metadata_is_limited() {
        let many = (0..16)
            .map(|i| {
                (
                    format!("k{i}"),
                    MetadataValue {
                        string_value: Some("v".into()),
                    },
                )
            })
            .collect();
        assert!(metadata(Some(many)).is_err());
        let bad = [(
            "k".to_string(),
            MetadataValue {
                string_value: Some("a|b".into()),
            },
        )]
        .into();
        assert_eq!(
            metadata(Some(bad)).unwrap_err().field.as_deref(),
            Some("metadata.k.stringValue")
        );
    }
}
