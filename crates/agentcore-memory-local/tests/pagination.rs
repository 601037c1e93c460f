//! ListEvents pagination: completeness over many pages, filters applied to
//! the scanned page (so pages can be short or empty and still continue), and
//! tokens bound to the query that produced them.

mod common;

use aws_sdk_bedrockagentcore::types::OperatorType;
use common::*;

/// Creates `n` events one ms apart (8 concurrent writers, to keep the test
/// quick) and returns their ids newest first.
async fn fill(scope: &Scope, n: i64) -> Vec<String> {
    let mut tasks = Vec::new();
    for worker in 0..8 {
        let scope = scope.clone();
        tasks.push(tokio::spawn(async move {
            let mut made = Vec::new();
            for i in (worker..n).step_by(8) {
                made.push((T0 + i, scope.put(T0 + i).await.event_id().to_string()));
            }
            made
        }));
    }
    let mut all = Vec::new();
    for task in tasks {
        all.extend(within(task).await.unwrap());
    }
    all.sort_by(|a, b| b.cmp(a));
    all.into_iter().map(|(_, id)| id).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paginator_yields_every_event_once_in_order() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let expected = fill(&scope, 263).await;
    let mut stream = scope.list().max_results(37).into_paginator().send();
    let mut seen = Vec::new();
    // 263 / 37 = 8 pages; a few spare in case the last page is empty.
    for _ in 0..12 {
        match within(stream.next()).await {
            Some(page) => seen.extend(ids(page.expect("page").events())),
            None => break,
        }
    }
    assert_eq!(seen.len(), expected.len(), "events missing or repeated");
    assert_eq!(seen, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn next_token_walk_over_maximal_pages() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let expected = fill(&scope, 260).await;
    let mut token: Option<String> = None;
    let mut sizes = Vec::new();
    let mut seen = Vec::new();
    for _ in 0..10 {
        let page = send_ok(
            scope
                .list()
                .max_results(100)
                .set_next_token(token.take())
                .send(),
        )
        .await;
        sizes.push(page.events().len());
        seen.extend(ids(page.events()));
        token = page.next_token().map(str::to_string);
        if token.is_none() {
            break;
        }
    }
    assert!(token.is_none(), "still paginating after 10 pages");
    assert_eq!(&sizes[..3], &[100, 100, 60]);
    assert_eq!(seen, expected);
}

/// maxResults bounds the events scanned, not the events returned: with only
/// the oldest of 50 events matching and pages of 10, the first four pages
/// must come back empty yet carry a nextToken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filtered_pages_can_be_empty_and_still_continue() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let oldest = scope.put_tagged(T0, "mark", "oldest").await;
    for i in 1..50 {
        scope.put_tagged(T0 + i, "mark", "other").await;
    }
    let filter = filter_of(vec![metadata_filter(
        "mark",
        OperatorType::EqualsTo,
        Some("oldest"),
    )]);
    let mut token: Option<String> = None;
    let mut pages: Vec<Vec<String>> = Vec::new();
    for _ in 0..20 {
        let page = send_ok(
            scope
                .list()
                .max_results(10)
                .filter(filter.clone())
                .set_next_token(token.take())
                .send(),
        )
        .await;
        pages.push(ids(page.events()));
        token = page.next_token().map(str::to_string);
        if token.is_none() {
            break;
        }
    }
    assert!(token.is_none(), "still paginating after 20 pages");
    assert!(pages.len() >= 5, "50 events in pages of 10: {pages:?}");
    for (n, page) in pages[..4].iter().enumerate() {
        assert!(page.is_empty(), "page {n} should be empty: {page:?}");
    }
    let found: Vec<String> = pages.concat();
    assert_eq!(found, vec![oldest.event_id().to_string()]);
}

/// Filters apply within the scanned page: a page of 10 over alternating
/// events holds exactly the 5 matches of those 10, not 10 matches.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filtered_pages_are_short() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    for i in 0..30 {
        let parity = if i % 2 == 0 { "even" } else { "odd" };
        scope.put_tagged(T0 + i, "parity", parity).await;
    }
    let filter = filter_of(vec![metadata_filter(
        "parity",
        OperatorType::EqualsTo,
        Some("even"),
    )]);
    let page = send_ok(scope.list().max_results(10).filter(filter.clone()).send()).await;
    let stamps: Vec<i64> = page
        .events()
        .iter()
        .map(|e| to_ms(e.event_timestamp()))
        .collect();
    assert_eq!(stamps, vec![T0 + 28, T0 + 26, T0 + 24, T0 + 22, T0 + 20]);
    assert!(page.next_token().is_some());
    assert_eq!(scope.list_all(Some(filter), 10).await.len(), 15);
}

async fn first_token(scope: &Scope) -> String {
    let page = send_ok(scope.list().max_results(2).send()).await;
    page.next_token().expect("more than one page").to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_only_works_for_its_own_query() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let other_session = scope.with("actor-1", "session-2");
    for i in 0..5 {
        scope.put_tagged(T0 + i, "k", "v").await;
        other_session.put_tagged(T0 + i, "k", "v").await;
    }
    let token = first_token(&scope).await;
    // The same query continues fine.
    send_ok(scope.list().max_results(2).next_token(&token).send()).await;

    let elsewhere = send_err(
        other_session
            .list()
            .max_results(2)
            .next_token(&token)
            .send(),
    )
    .await;
    elsewhere.assert_code(400, "ValidationException");

    let filter = filter_of(vec![metadata_filter("k", OperatorType::Exists, None)]);
    let filtered = send_err(
        scope
            .list()
            .max_results(2)
            .filter(filter)
            .next_token(&token)
            .send(),
    )
    .await;
    filtered.assert_code(400, "ValidationException");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_token_is_a_validation_error() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    scope.put(T0).await;
    for forged in ["not-a-token", "eyJ2IjoxfQ", "%%%"] {
        let failure = send_err(scope.list().next_token(forged).send()).await;
        failure.assert_code(400, "ValidationException");
    }
}
