//! The real server on 127.0.0.1:0, queried over loopback with a minimal HTTP/1.1 client.

use rigor_mr_movies::{search, start, Mutant};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// `GET path` → (status, body as JSON or `Value::String` when not JSON).
async fn get(addr: std::net::SocketAddr, path: &str) -> (u16, Value) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        unchunk(body)
    } else {
        body.to_string()
    };
    (
        status,
        serde_json::from_str(&body).unwrap_or(Value::String(body)),
    )
}

fn unchunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap();
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        body = &rest[n + 2..];
    }
    out
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn query_string(params: &[(String, String)]) -> String {
    params
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// The source tests of spec/testCases.csv as parameter lists (empty cell = absent).
fn test_cases() -> Vec<(String, Vec<(String, String)>)> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/spec/testCases.csv"))
        .unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(';').collect();
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let cells: Vec<&str> = l.split(';').collect();
            let params = header[1..]
                .iter()
                .zip(&cells[1..])
                .filter(|(_, v)| !v.is_empty())
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            (cells[0].to_string(), params)
        })
        .collect()
}

fn ids(v: &Value) -> Vec<u64> {
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_u64().unwrap())
        .collect()
}

#[tokio::test]
async fn original_serves_json_errors_and_every_source_test() {
    let server = start("127.0.0.1:0", None).await.unwrap();
    let addr = server.addr();
    assert_eq!(get(addr, "/health").await.0, 200);

    let (status, body) = get(addr, "/search?director=Spielberg&sort=year_asc&limit=3").await;
    assert_eq!(status, 200);
    assert_eq!(body["total"], 23);
    let items = body["items"].as_array().unwrap();
    assert_eq!(items.len(), 3);
    assert_eq!(items[0]["title"], "Jaws");
    for key in [
        "id", "title", "year", "director", "genre", "rating", "imdb", "votes", "gross",
    ] {
        assert!(items[0].get(key).is_some(), "{key}");
    }

    // Percent-encoded enum values with spaces and slashes.
    let (status, body) = get(addr, "/search?genre=Concert%2FPerformance&rating=Not+Rated").await;
    assert_eq!((status, body["total"].as_u64()), (200, Some(0)));
    let (status, body) = get(addr, "/search?genre=Concert%2FPerformance").await;
    assert_eq!((status, body["total"].as_u64()), (200, Some(5)));

    for (path, param) in [
        ("/search?min_imdb=high", "min_imdb"),
        ("/search?genre=Sci-Fi", "genre"),
        ("/search?colour=red", "colour"),
        ("/search?limit=-3", "limit"),
    ] {
        let (status, body) = get(addr, path).await;
        assert_eq!(status, 400, "{path}");
        assert_eq!(body["parameter"], param, "{path}");
        assert!(
            body["error"].as_str().unwrap().contains(param),
            "{path}: {body}"
        );
    }

    let cases = test_cases();
    assert_eq!(cases.len(), 20);
    for (id, params) in &cases {
        let (status, body) = get(addr, &format!("/search?{}", query_string(params))).await;
        assert_eq!(status, 200, "{id}: {body}");
        assert!(!ids(&body).is_empty(), "{id}: no items");
        // Over HTTP exactly as the pure function says.
        let want = serde_json::to_value(search(params, None).unwrap()).unwrap();
        assert_eq!(body, want, "{id}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_mutant_server_answers_differently() {
    let original = start("127.0.0.1:0", None).await.unwrap();
    let mutant = start(
        "127.0.0.1:0",
        Some("or-genre-as-and".parse::<Mutant>().unwrap()),
    )
    .await
    .unwrap();
    let path = "/search?min_year=2005&or_genre=Western";
    let (a, b) = (
        get(original.addr(), path).await,
        get(mutant.addr(), path).await,
    );
    assert_eq!((a.0, b.0), (200, 200));
    let (a, b) = (ids(&a.1), ids(&b.1));
    // The disjunctive relation: adding or_genre must not lose results; the mutant loses them.
    let (_, src) = get(mutant.addr(), "/search?min_year=2005").await;
    assert!(b.len() < ids(&src).len() && b.iter().all(|i| a.contains(i)));
    original.shutdown().await.unwrap();
    mutant.shutdown().await.unwrap();
}
