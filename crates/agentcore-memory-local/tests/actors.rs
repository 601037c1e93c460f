//! ListActors: each actor of a memory with a session, once, across pages.

mod common;

use std::collections::BTreeSet;

use common::*;

/// Actor ids page by page, following nextToken (bounded).
async fn actor_pages(scope: &Scope, page: i32) -> Vec<Vec<String>> {
    let mut pages = Vec::new();
    let mut token: Option<String> = None;
    for _ in 0..100 {
        let out = send_ok(
            scope
                .client
                .list_actors()
                .memory_id(&scope.memory)
                .max_results(page)
                .set_next_token(token.take())
                .send(),
        )
        .await;
        pages.push(
            out.actor_summaries()
                .iter()
                .map(|a| a.actor_id().to_string())
                .collect(),
        );
        token = out.next_token().map(str::to_string);
        if token.is_none() {
            return pages;
        }
    }
    panic!("ListActors kept paginating");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn distinct_actors_across_pages() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let actors = ["user-3", "user-1", "team/alpha:bot", "user-2", "z"];
    for (i, actor) in actors.iter().enumerate() {
        // Several sessions and events per actor: still one entry each.
        for session in ["one", "two"] {
            scope.with(actor, session).put(T0 + i as i64).await;
            scope.with(actor, session).put(T0 + 10 + i as i64).await;
        }
    }
    let pages = actor_pages(&scope, 2).await;
    assert_eq!(pages[0].len(), 2, "a full first page: {pages:?}");
    let listed: Vec<String> = pages.concat();
    let distinct: BTreeSet<&String> = listed.iter().collect();
    assert_eq!(
        distinct.len(),
        listed.len(),
        "an actor listed twice: {listed:?}"
    );
    let expected: BTreeSet<String> = actors.iter().map(|a| a.to_string()).collect();
    assert_eq!(listed.into_iter().collect::<BTreeSet<_>>(), expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_memory_has_no_actors() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let pages = actor_pages(&scope, 10).await;
    assert_eq!(pages, vec![Vec::<String>::new()]);
}
