//! ListEvents filters: what each metadata operator matches, how several
//! expressions combine, and the branch filter.

mod common;

use aws_sdk_bedrockagentcore::types::{Branch, BranchFilter, FilterInput, OperatorType};
use common::*;

/// Twelve events: kind=a for i%3==0, kind=b for i%3==1, no metadata else.
/// Returns the timestamps (ms offsets) of each group, newest first.
async fn tagged_session(scope: &Scope) -> [Vec<i64>; 3] {
    let mut groups: [Vec<i64>; 3] = Default::default();
    for i in 0..12 {
        match i % 3 {
            0 => scope.put_tagged(T0 + i, "kind", "a").await,
            1 => scope.put_tagged(T0 + i, "kind", "b").await,
            _ => scope.put(T0 + i).await,
        };
        groups[(i % 3) as usize].insert(0, i);
    }
    groups
}

async fn offsets(scope: &Scope, filter: FilterInput) -> Vec<i64> {
    let events = scope.list_all(Some(filter), 100).await;
    events
        .iter()
        .map(|e| to_ms(e.event_timestamp()) - T0)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn equals_to_matches_the_exact_value() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let [a, b, _] = tagged_session(&scope).await;
    let only = |v: &str| {
        filter_of(vec![metadata_filter(
            "kind",
            OperatorType::EqualsTo,
            Some(v),
        )])
    };
    assert_eq!(offsets(&scope, only("a")).await, a);
    assert_eq!(offsets(&scope, only("b")).await, b);
    // A prefix or different case is not equal.
    assert!(offsets(&scope, only("A")).await.is_empty());
    assert!(offsets(&scope, only("")).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exists_and_not_exists_split_the_events() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let [a, b, none] = tagged_session(&scope).await;
    let exists = filter_of(vec![metadata_filter("kind", OperatorType::Exists, None)]);
    let mut tagged: Vec<i64> = a.iter().chain(&b).copied().collect();
    tagged.sort_by(|x, y| y.cmp(x));
    assert_eq!(offsets(&scope, exists).await, tagged);
    let missing = filter_of(vec![metadata_filter("kind", OperatorType::NotExists, None)]);
    assert_eq!(offsets(&scope, missing).await, none);
    let unknown_key = filter_of(vec![metadata_filter("nope", OperatorType::Exists, None)]);
    assert!(offsets(&scope, unknown_key).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_expressions_must_all_match() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let [_, b, _] = tagged_session(&scope).await;
    let both = filter_of(vec![
        metadata_filter("kind", OperatorType::Exists, None),
        metadata_filter("kind", OperatorType::EqualsTo, Some("b")),
    ]);
    assert_eq!(offsets(&scope, both).await, b);
    let contradiction = filter_of(vec![
        metadata_filter("kind", OperatorType::EqualsTo, Some("a")),
        metadata_filter("kind", OperatorType::NotExists, None),
    ]);
    assert!(offsets(&scope, contradiction).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn branch_filter_selects_the_branch() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let root = scope.put(T0).await;
    scope.put(T0 + 1).await;
    let branch = Branch::builder()
        .name("side")
        .root_event_id(root.event_id())
        .build()
        .unwrap();
    let mut side = Vec::new();
    for i in 2..5 {
        let created = send_ok(
            scope
                .create(T0 + i)
                .payload(blob(&serde_json::json!(i)))
                .branch(branch.clone())
                .send(),
        )
        .await;
        side.insert(0, created.event.unwrap().event_id().to_string());
    }
    let filter = FilterInput::builder()
        .branch(BranchFilter::builder().name("side").build().unwrap())
        .build();
    assert_eq!(ids(&scope.list_all(Some(filter), 100).await), side);
}
