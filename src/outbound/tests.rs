//! Against real servers on 127.0.0.1, with a resolver stand-in answering what
//! a hostile DNS server would.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::*;

/// Answers each name from a queue of answers; the last answer repeats.
#[derive(Default)]
struct StandIn(Mutex<HashMap<String, Vec<Vec<IpAddr>>>>);

impl StandIn {
    fn answers(self, host: &str, answers: &[&[&str]]) -> Self {
        let parsed = answers.iter().map(|a| a.iter().filter_map(|ip| ip.parse().ok()).collect()).collect();
        self.0.lock().unwrap_or_else(|e| e.into_inner()).insert(host.into(), parsed);
        self
    }
}

impl Lookup for StandIn {
    fn lookup(&self, host: String) -> BoxFuture<'static, std::io::Result<Vec<IpAddr>>> {
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let answer = match all.get_mut(&host) {
            Some(queue) if queue.len() > 1 => Ok(queue.remove(0)),
            Some(queue) => Ok(queue.first().cloned().unwrap_or_default()),
            None => Err(std::io::Error::new(std::io::ErrorKind::NotFound, "no such host")),
        };
        Box::pin(async move { answer })
    }
}

/// What a test server answers after reading a request head.
#[derive(Clone, Copy)]
enum Answer {
    Short,
    /// 200 with a declared length of 3 GiB, written as fast as it is read.
    Endless,
    /// 200, then one byte every 100 ms for ever.
    Trickle,
}

/// A server on 127.0.0.1 counting the connections it accepted.
async fn server(answer: Answer) -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("bind: {e}"));
    let port = listener.local_addr().map(|a| a.port()).unwrap_or_default();
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&accepted);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut head = [0u8; 4096];
                let _ = stream.read(&mut head).await;
                let _ = match answer {
                    Answer::Short => stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await,
                    Answer::Endless => {
                        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 3221225472\r\n\r\n").await;
                        let block = vec![b'a'; 64 * 1024];
                        while stream.write_all(&block).await.is_ok() {}
                        Ok(())
                    }
                    Answer::Trickle => {
                        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 1000000\r\n\r\n").await;
                        while stream.write_all(b"t").await.is_ok() {
                            tokio::time::sleep(Duration::from_millis(100)).await;
                        }
                        Ok(())
                    }
                };
            });
        }
    });
    (port, accepted)
}

fn outbound(allowlist: &[String], lookup: StandIn) -> Outbound {
    Outbound::with_lookup(allowlist, false, Arc::new(lookup)).unwrap_or_else(|e| panic!("{e}"))
}

#[tokio::test]
async fn a_name_that_rebinds_to_a_private_address_is_refused_at_connect_time() {
    let (port, accepted) = server(Answer::Short).await;
    // Public when saved, 127.0.0.1 when called: DNS rebinding with a zero TTL.
    let client = outbound(&[], StandIn::default().answers("rebind.test", &[&["93.184.216.34"], &["127.0.0.1"]]));
    let url = format!("http://rebind.test:{port}/hook");
    assert!(client.check(&url).await.is_ok(), "the first answer is public");

    let request = client.request(Method::POST, &url).await.unwrap_or_else(|e| panic!("{e}"));
    let error = request.send().await.err().unwrap_or_else(|| panic!("the call reached the private address"));
    assert!(matches!(refusal_of(&error), Some(Refusal::Private(_))), "{error:?}");
    assert!(describe(&error).starts_with("target refused: rebind.test resolves to 127.0.0.1"), "{}", describe(&error));
    assert_eq!(accepted.load(Ordering::SeqCst), 0, "nothing connected to the private server");
}

#[tokio::test]
async fn a_name_with_any_private_address_is_refused_and_literals_are_checked_before_the_call() {
    let client = outbound(&[], StandIn::default().answers("mixed.test", &[&["93.184.216.34", "169.254.169.254"]]));
    assert!(matches!(client.check("http://mixed.test/").await, Err(Refusal::Private(_))));
    let error = client.request(Method::GET, "http://mixed.test/").await.unwrap_or_else(|e| panic!("{e}")).send().await;
    assert!(error.is_err_and(|e| refusal_of(&e).is_some()));
    assert!(matches!(client.request(Method::GET, "http://169.254.169.254/latest").await, Err(Refusal::Private(_))));
    assert!(matches!(client.request(Method::GET, "http://[::ffff:127.0.0.1]/").await, Err(Refusal::Private(_))));
}

#[tokio::test]
async fn only_the_exact_allowlisted_host_and_port_may_reach_a_private_address() {
    let (port, accepted) = server(Answer::Short).await;
    let (other_port, other_accepted) = server(Answer::Short).await;
    let client =
        outbound(&[format!("hooks.internal:{port}")], StandIn::default().answers("hooks.internal", &[&["127.0.0.1"]]));
    let allowed = client.request(Method::GET, &format!("http://hooks.internal:{port}/")).await;
    let answer = allowed.unwrap_or_else(|e| panic!("{e}")).send().await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(answer.status(), 200);
    assert_eq!(accepted.load(Ordering::SeqCst), 1);

    let other = client.request(Method::GET, &format!("http://hooks.internal:{other_port}/")).await;
    let error = other.unwrap_or_else(|e| panic!("{e}")).send().await.err();
    assert!(error.is_some_and(|e| refusal_of(&e).is_some()), "another port of an allowlisted name is not exempt");
    assert_eq!(other_accepted.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn an_endless_answer_is_read_up_to_its_cap_and_a_trickle_up_to_its_deadline() {
    let (endless, _) = server(Answer::Endless).await;
    let (trickle, _) = server(Answer::Trickle).await;
    let allow = [format!("127.0.0.1:{endless}"), format!("127.0.0.1:{trickle}")];
    let client = outbound(&allow, StandIn::default());

    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    let request = client.request(Method::GET, &format!("http://127.0.0.1:{endless}/")).await;
    let answer = request.unwrap_or_else(|e| panic!("{e}")).send().await.unwrap_or_else(|e| panic!("{e}"));
    let body = read_capped(answer, 2048, deadline).await;
    assert_eq!((body.end, body.bytes.len()), (BodyEnd::CapReached, 2048));

    let started = tokio::time::Instant::now();
    let deadline = started + Duration::from_millis(700);
    let request = client.request(Method::GET, &format!("http://127.0.0.1:{trickle}/")).await;
    let answer = request.unwrap_or_else(|e| panic!("{e}")).send().await.unwrap_or_else(|e| panic!("{e}"));
    let body = read_capped(answer, 2048, deadline).await;
    assert_eq!(body.end, BodyEnd::TimedOut);
    assert!((3..=8).contains(&body.bytes.len()), "{} bytes trickled in", body.bytes.len());
    assert!(started.elapsed() < Duration::from_millis(1500));
    assert_eq!(body.text().chars().next(), Some('t'));
}

#[test]
fn text_leaves_out_a_character_the_cap_cut() {
    let body = CappedBody { bytes: "añ".as_bytes()[..2].to_vec(), end: BodyEnd::CapReached };
    assert_eq!(body.text(), "a");
    let body = CappedBody { bytes: vec![b'a', 0xff, b'b'], end: BodyEnd::Complete };
    assert_eq!(body.text(), "a\u{fffd}b");
}
