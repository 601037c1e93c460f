//! ListSessions: the sessions of one actor, in sessionId order, paginated,
//! and the HAS_EVENTS filter.

mod common;

use aws_sdk_bedrockagentcore::types::{EventFilterCondition, SessionFilter, SessionSummary};
use common::*;

/// All session summaries of `scope.actor`, following nextToken (bounded).
async fn sessions(scope: &Scope, page: i32, has_events: bool) -> Vec<Vec<SessionSummary>> {
    let filter = has_events.then(|| {
        SessionFilter::builder()
            .event_filter(EventFilterCondition::HasEvents)
            .build()
    });
    let mut pages = Vec::new();
    let mut token: Option<String> = None;
    for _ in 0..100 {
        let out = send_ok(
            scope
                .client
                .list_sessions()
                .memory_id(&scope.memory)
                .actor_id(&scope.actor)
                .max_results(page)
                .set_filter(filter.clone())
                .set_next_token(token.take())
                .send(),
        )
        .await;
        pages.push(out.session_summaries().to_vec());
        token = out.next_token().map(str::to_string);
        if token.is_none() {
            return pages;
        }
    }
    panic!("ListSessions kept paginating");
}

fn names(summaries: &[SessionSummary]) -> Vec<&str> {
    summaries.iter().map(|s| s.session_id()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_of_an_actor_in_id_order_across_pages() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let started = now_ms();
    // Written out of order, and two events in one session: it is listed once.
    for session in ["s-c", "s-a", "s-e", "s-b", "s-d", "s-a"] {
        scope.with("actor-1", session).put(now_ms()).await;
    }
    // Another actor's session must not show up.
    scope.with("actor-2", "s-0").put(now_ms()).await;

    let pages = sessions(&scope, 2, false).await;
    assert_eq!(names(&pages[0]), ["s-a", "s-b"]);
    assert_eq!(names(&pages[1]), ["s-c", "s-d"]);
    let all: Vec<SessionSummary> = pages.concat();
    assert_eq!(names(&all), ["s-a", "s-b", "s-c", "s-d", "s-e"]);
    for summary in &all {
        assert_eq!(summary.actor_id(), "actor-1");
        // createdAt is either the write time or the first event's time;
        // both are "now" here, give or take a generous margin.
        let created = to_ms(summary.created_at());
        assert!(
            (started - 60_000..=now_ms() + 60_000).contains(&created),
            "createdAt {created} not near {started}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn has_events_skips_sessions_whose_events_were_all_deleted() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let emptied = scope.with("actor-1", "emptied");
    let partly = scope.with("actor-1", "partly");
    let full = scope.with("actor-1", "full");
    let doomed = [emptied.put(T0).await, emptied.put(T0 + 1).await];
    let partly_doomed = partly.put(T0).await;
    partly.put(T0 + 1).await;
    full.put(T0).await;
    for event in &doomed {
        delete(&emptied, event.event_id()).await;
    }
    delete(&partly, partly_doomed.event_id()).await;

    let with_events: Vec<SessionSummary> = sessions(&scope, 100, true).await.concat();
    assert_eq!(names(&with_events), ["full", "partly"]);
    // Unfiltered, the emptied session may or may not be listed, but the
    // others must be.
    let unfiltered: Vec<SessionSummary> = sessions(&scope, 100, false).await.concat();
    let unfiltered = names(&unfiltered);
    assert!(
        unfiltered.contains(&"full") && unfiltered.contains(&"partly"),
        "{unfiltered:?}"
    );
}

async fn delete(scope: &Scope, event_id: &str) {
    send_ok(
        scope
            .client
            .delete_event()
            .memory_id(&scope.memory)
            .actor_id(&scope.actor)
            .session_id(&scope.session)
            .event_id(event_id)
            .send(),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_actor_without_sessions_has_none() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    scope.put(T0).await;
    let stranger = scope.with("nobody", "x");
    let pages = sessions(&stranger, 10, false).await;
    assert_eq!(pages.len(), 1);
    assert!(pages[0].is_empty());
}
