//! The saver contract against the local server over HTTP.

mod common;

use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_put_reads_back_with_values_parent_and_writes() {
    let f = fixture().await;
    let p = place("thread-1", "");
    let c1 = uuid6();
    f.saver
        .put(put(&p, &c1, None, &[("a", "1")], &[("a", "1", "\"one\"")]))
        .await
        .unwrap();
    let c2 = uuid6();
    f.saver
        .put(put(
            &p,
            &c2,
            Some(&c1),
            &[("a", "1"), ("b", "1")],
            &[("b", "1", "\"two\"")],
        ))
        .await
        .unwrap();
    f.saver
        .put_writes(writes(&p, &c2, "task-b", &[(0, "x", "1"), (1, "y", "2")]))
        .await
        .unwrap();
    f.saver
        .put_writes(writes(&p, &c2, "task-a", &[(0, "z", "3")]))
        .await
        .unwrap();

    let tuple = f
        .saver
        .get_tuple(p.clone(), None)
        .await
        .unwrap()
        .value
        .expect("newest");
    assert_eq!(tuple.checkpoint_id, c2);
    assert_eq!(tuple.parent_id.as_deref(), Some(c1.as_str()));
    let values: Vec<_> = tuple
        .values
        .iter()
        .map(|v| (v.channel.as_str(), text(&v.value)))
        .collect();
    assert_eq!(
        values,
        [("a", "\"one\"".to_string()), ("b", "\"two\"".to_string())]
    );
    let order: Vec<_> = tuple
        .pending_writes
        .iter()
        .map(|w| (w.task_id.as_str(), w.channel.as_str()))
        .collect();
    assert_eq!(order, [("task-a", "z"), ("task-b", "x"), ("task-b", "y")]);

    let older = f
        .saver
        .get_tuple(p.clone(), Some(c1.clone()))
        .await
        .unwrap()
        .value
        .expect("by id");
    assert_eq!(older.checkpoint_id, c1);
    assert!(older.pending_writes.is_empty());
    assert!(f
        .saver
        .get_tuple(place("thread-2", ""), None)
        .await
        .unwrap()
        .value
        .is_none());
    assert!(f
        .saver
        .get_tuple(p, Some(uuid6()))
        .await
        .unwrap()
        .value
        .is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_stored_versions_come_back() {
    // The contract: a channel whose version was never stored is absent.
    let f = fixture().await;
    let p = place("t", "");
    let versions = [("foo", "1"), ("baz", "1")];
    let ids: Vec<_> = (0..3).map(|_| uuid6()).collect();
    let changed: [&[(&str, &str, &str)]; 3] = [
        &[],
        &[("foo", "1", "\"bar\"")],
        &[("foo", "1", "\"bar\""), ("baz", "1", "\"qux\"")],
    ];
    let mut seen = Vec::new();
    for (id, changed) in ids.iter().zip(changed) {
        f.saver
            .put(put(&p, id, None, &versions, changed))
            .await
            .unwrap();
        let t = f
            .saver
            .get_tuple(p.clone(), Some(id.clone()))
            .await
            .unwrap()
            .value
            .unwrap();
        seen.push(
            t.values
                .iter()
                .map(|v| v.channel.clone())
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(
        seen,
        [
            vec![],
            vec!["foo".to_string()],
            vec!["foo".to_string(), "baz".to_string()]
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_keep_the_first_value_but_special_channels_overwrite() {
    let f = fixture().await;
    let p = place("t", "");
    let c = uuid6();
    f.saver.put(put(&p, &c, None, &[], &[])).await.unwrap();
    f.saver
        .put_writes(writes(
            &p,
            &c,
            "task",
            &[(0, "a", "first"), (-3, "__interrupt__", "first")],
        ))
        .await
        .unwrap();
    f.saver
        .put_writes(writes(
            &p,
            &c,
            "task",
            &[(0, "a", "second"), (-3, "__interrupt__", "second")],
        ))
        .await
        .unwrap();
    let t = newest(&f.saver, &p).await;
    let got: Vec<_> = t
        .pending_writes
        .iter()
        .map(|w| (w.channel.as_str(), text(&w.value)))
        .collect();
    assert_eq!(
        got,
        [
            ("__interrupt__", "second".to_string()),
            ("a", "first".to_string())
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_honours_limit_before_filter_and_namespaces() {
    let f = fixture().await;
    let mut ids = Vec::new();
    for ns in ["", "child:1"] {
        let p = place("t", ns);
        let mut parent = None;
        for _ in 0..3 {
            let id = uuid6();
            f.saver
                .put(put(&p, &id, parent.as_deref(), &[], &[]))
                .await
                .unwrap();
            parent = Some(id.clone());
            ids.push(id);
        }
    }
    let collect = |q: agentcore_checkpoint::ListQuery| {
        let saver = f.saver.clone();
        async move {
            let mut cursor = saver.list(q).unwrap();
            let mut out = Vec::new();
            while let Some(t) = cursor.next().await.unwrap() {
                out.push((t.checkpoint_ns, t.checkpoint_id));
            }
            out
        }
    };
    let root = collect(agentcore_checkpoint::ListQuery {
        thread_id: Some("t".into()),
        checkpoint_ns: Some("".into()),
        ..Default::default()
    })
    .await;
    assert_eq!(
        root.iter().map(|(_, id)| id.clone()).collect::<Vec<_>>(),
        [&ids[2], &ids[1], &ids[0]].map(String::clone)
    );
    let all = collect(agentcore_checkpoint::ListQuery {
        thread_id: Some("t".into()),
        ..Default::default()
    })
    .await;
    assert_eq!(all.len(), 6);
    let limited = collect(agentcore_checkpoint::ListQuery {
        thread_id: Some("t".into()),
        checkpoint_ns: Some("child:1".into()),
        before: Some(ids[5].clone()),
        limit: Some(1),
        ..Default::default()
    })
    .await;
    assert_eq!(limited, [("child:1".to_string(), ids[4].clone())]);
    let mut filter = serde_json::Map::new();
    filter.insert("source".into(), serde_json::json!("input"));
    let none = collect(agentcore_checkpoint::ListQuery {
        filter,
        ..Default::default()
    })
    .await;
    assert!(none.is_empty());
    let everything = collect(agentcore_checkpoint::ListQuery::default()).await;
    assert_eq!(everything.len(), 6);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_thread_removes_every_namespace_and_nothing_else() {
    let f = fixture().await;
    for (thread, ns) in [
        ("a", ""),
        ("a", "sub:1"),
        ("a", "sub:2"),
        ("ab", ""),
        ("b", ""),
    ] {
        let p = place(thread, ns);
        let id = uuid6();
        f.saver.put(put(&p, &id, None, &[], &[])).await.unwrap();
        f.saver
            .put_writes(writes(&p, &id, "task", &[(0, "x", "1")]))
            .await
            .unwrap();
    }
    f.saver.delete_thread("a").await.unwrap();
    for ns in ["", "sub:1", "sub:2"] {
        assert!(
            f.saver
                .get_tuple(place("a", ns), None)
                .await
                .unwrap()
                .value
                .is_none(),
            "{ns}"
        );
    }
    assert!(f
        .saver
        .get_tuple(place("ab", ""), None)
        .await
        .unwrap()
        .value
        .is_some());
    assert!(f
        .saver
        .get_tuple(place("b", ""), None)
        .await
        .unwrap()
        .value
        .is_some());
    // Deleting again is harmless.
    f.saver.delete_thread("a").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_string_is_a_thread_and_threads_never_share_storage() {
    let f = fixture().await;
    let long = "x".repeat(1000);
    let threads = [
        "a:b",
        "a|b",
        "a_b",
        "a-b",
        "A-B",
        "ünï€ode",
        long.as_str(),
        "h_0123",
    ];
    let namespaces = ["", "parent:task-1|child:task-2"];
    for thread in threads {
        for ns in namespaces {
            let id = uuid6();
            let changed = [("who", "1", format!("\"{thread}/{ns}\""))];
            let changed: Vec<_> = changed
                .iter()
                .map(|(c, v, x)| (*c, *v, x.as_str()))
                .collect();
            f.saver
                .put(put(
                    &place(thread, ns),
                    &id,
                    None,
                    &[("who", "1")],
                    &changed,
                ))
                .await
                .unwrap();
        }
    }
    for thread in threads {
        for ns in namespaces {
            let t = newest(&f.saver, &place(thread, ns)).await;
            assert_eq!(
                (t.thread_id.as_str(), t.checkpoint_ns.as_str()),
                (thread, ns)
            );
            assert_eq!(text(&t.values[0].value), format!("\"{thread}/{ns}\""));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn actors_keep_threads_apart() {
    let f = fixture().await;
    let mut p = place("shared", "");
    p.actor = Some("user:émile".into());
    f.saver
        .put(put(&p, &uuid6(), None, &[], &[]))
        .await
        .unwrap();
    assert!(f
        .saver
        .get_tuple(place("shared", ""), None)
        .await
        .unwrap()
        .value
        .is_none());
    let t = newest(&f.saver, &p).await;
    assert_eq!(t.actor, "user:émile");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delta_history_walks_ancestors_in_one_pass() {
    let f = fixture().await;
    let p = place("t", "");
    let c0 = uuid6();
    f.saver
        .put(put(&p, &c0, None, &[("m", "1")], &[("m", "1", "[0]")]))
        .await
        .unwrap();
    f.saver
        .put_writes(writes(&p, &c0, "task0", &[(0, "m", "[1]")]))
        .await
        .unwrap();
    let c1 = uuid6();
    f.saver
        .put(put(&p, &c1, Some(&c0), &[], &[]))
        .await
        .unwrap();
    f.saver
        .put_writes(writes(&p, &c1, "task1", &[(0, "m", "[2]")]))
        .await
        .unwrap();
    let c2 = uuid6();
    f.saver
        .put(put(&p, &c2, Some(&c1), &[], &[]))
        .await
        .unwrap();
    let h = f
        .saver
        .delta_channel_history(p, Some(c2), vec!["m".into()])
        .await
        .unwrap()
        .value;
    assert_eq!(h[0].seed.as_ref().map(text).as_deref(), Some("[0]"));
    assert_eq!(
        h[0].writes
            .iter()
            .map(|w| text(&w.value))
            .collect::<Vec<_>>(),
        ["[1]", "[2]"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn before_must_name_a_checkpoint_some_thread_has() {
    let f = fixture().await;
    let a = grow(&f.saver, &place("thread-a", ""), 3, 16, 1).await;
    let b = grow(&f.saver, &place("thread-b", ""), 3, 16, 1).await;
    // A new process: nothing known in memory.
    let cold = std::sync::Arc::new(f.cold_saver());
    let below = |before: &str| agentcore_checkpoint::ListQuery {
        before: Some(before.to_string()),
        ..of_thread("thread-b")
    };
    // Another thread's id is a bound, as LangGraph's conformance suite uses it.
    let listed = listed_ids(&cold, below(&a[1])).await;
    let expected: Vec<_> = b.iter().rev().filter(|id| *id < &a[1]).cloned().collect();
    assert_eq!(listed, expected);
    // An id no thread has is refused, naming `before` and the id.
    let unknown = uuid6();
    let mut cursor = cold.list(below(&unknown)).unwrap();
    let err = cursor.next().await.unwrap_err();
    assert_eq!(err.code, "InvalidArgument");
    assert!(
        err.message.starts_with("before names checkpoint"),
        "{}",
        err.message
    );
    assert!(err.message.contains(&unknown));
}
