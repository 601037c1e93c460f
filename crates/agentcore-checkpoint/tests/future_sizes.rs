//! Every pending call is a future held until it completes: a thousand graphs
//! at once hold a thousand of them. Configuring the SDK client, and each
//! request the SDK sends, are boxed, so that a waiting call costs little.

mod common;

use common::*;

/// Was 13 KB before the SDK's configuration future was boxed.
const MAX_FUTURE_BYTES: usize = 4096;

#[tokio::test]
async fn a_pending_call_holds_a_small_future() {
    let f = fixture().await;
    let p = place("t", "");
    let put = f
        .saver
        .put(put(&p, &uuid6(), None, &[("a", "1")], &[("a", "1", "1")]));
    let writes = f.saver.put_writes(writes(&p, "c", "t", &[(0, "a", "1")]));
    let read = f.saver.get_tuple(p.clone(), None);
    for (name, size) in [
        ("put", std::mem::size_of_val(&put)),
        ("put_writes", std::mem::size_of_val(&writes)),
        ("get_tuple", std::mem::size_of_val(&read)),
    ] {
        assert!(size <= MAX_FUTURE_BYTES, "{name}: {size} bytes");
    }
}
