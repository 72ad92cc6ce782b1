//! The JSON API over loopback, as the pages use it: every refusal is a
//! 4xx with a sentence, a whole connect-four game against the shipped
//! agent, a pasted backgammon position answered by the agents, metrics
//! followed from an offset, a client that hangs up mid-search, and 200
//! requests at once. Searches use a handful of simulations so the suite
//! stays fast in debug builds.

use minnow_serve::ServeConfig;
use minnow_serve::testing::{Response, request, spawn};
use serde_json::{Value, json};
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(120);

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One server for the whole file, with the shipped agents.
fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| {
        let config = ServeConfig { agents_dir: repo().join("agents"), checkpoints: Vec::new() };
        spawn(&config).unwrap()
    })
}

fn post(path: &str, body: Value) -> Response {
    request(server(), "POST", path, Some(&body.to_string()), TIMEOUT).unwrap()
}

fn get(path: &str) -> Response {
    request(server(), "GET", path, None, TIMEOUT).unwrap()
}

/// Asserts a refusal: its status and a phrase of its message.
fn refused(response: Response, status: u16, phrase: &str) {
    let message = response.json()["error"].as_str().unwrap_or_default().to_string();
    assert_eq!(response.status, status, "{}", response.body);
    assert!(message.contains(phrase), "expected '{phrase}' in: {message}");
}

#[test]
fn malformed_input_is_a_400_saying_what_is_wrong() {
    refused(post("/api/connect4/move", json!({"moves": "4x"})), 400, "character 2 is 'x', expected a column 1 to 7");
    refused(post("/api/connect4/move", json!({"moves": "", "column": 9})), 400, "column 9: expected 1 to 7");
    refused(
        post("/api/connect4/analyse", json!({"moves": "", "simulations": 1_000_000_000})),
        400,
        "simulations 1000000000: expected 1 to 100000",
    );
    refused(post("/api/connect4/move", json!({"moves": "1".repeat(100)})), 400, "at most 42");
    refused(post("/api/connect4/move", json!({"moves": 44})), 400, "the request body");
    let raw = request(server(), "POST", "/api/connect4/move", Some("{not json"), TIMEOUT).unwrap();
    refused(raw, 400, "the request body");
    refused(
        post("/api/backgammon/setup", json!({"text": "4HPwATDgc/AB!A"})),
        400,
        "is '!', expected a base64 character",
    );
    refused(post("/api/backgammon/setup", json!({"text": "4HPwATDgc/ABMA 71"})), 400, "roll '71'");
    refused(post("/api/backgammon/setup", json!({"text": "a b c"})), 400, "expected a Position ID");
    let state = json!({"position": "4HPwATDgc/ABMA", "player": 0, "dice": [7, 1]});
    refused(post("/api/backgammon/move", json!({"state": state, "human": 0})), 400, "expected two dice 1 to 6");
    refused(get("/api/metrics?run=x&offset=minus"), 400, "the query");
    refused(get("/api/logic-ca/frames?steps=100000"), 400, "steps 100000: expected 1 to 500");
}

#[test]
fn illegal_moves_and_runs_of_another_task_are_422s() {
    refused(post("/api/connect4/move", json!({"moves": "444444", "column": 4})), 422, "column 4 is full");
    refused(post("/api/connect4/move", json!({"moves": "4444444"})), 422, "move 7 (column 4)");
    let start = post("/api/backgammon/setup", json!({"text": "4HPwATDgc/ABMA 31"})).json();
    let state = start["view"]["state"].clone();
    let illegal = json!({"state": state, "human": 0, "play": "24/1"});
    refused(post("/api/backgammon/move", illegal), 422, "not a legal play");
    refused(post("/api/backgammon/move", json!({"state": state, "human": 1, "play": "8/5 6/5"})), 422, "agent's roll");
    let logic = repo().join("agents/logic-ca").display().to_string();
    refused(post("/api/connect4/move", json!({"moves": "", "agent": logic})), 422, "task 'logic-ca'");
    let connect4 = repo().join("agents/az-connect4").display().to_string();
    refused(get(&format!("/api/logic-ca/frames?run={connect4}")), 422, "a run of task az-connect4");
    refused(
        post("/api/backgammon/move", json!({"state": state, "human": 1, "agent": "az-connect4"})),
        422,
        "plays connect4",
    );
}

#[test]
fn missing_checkpoints_runs_and_pages_are_404s() {
    let missing = json!({"moves": "", "agent": "/nowhere/runs/az-connect4"});
    refused(post("/api/connect4/move", missing), 404, "no agent '/nowhere/runs/az-connect4'");
    refused(get("/api/metrics?run=/nowhere/run"), 404, "no run directory at /nowhere/run");
    refused(get("/api/logic-ca/frames?run=/nowhere/run"), 404, "no logic-ca checkpoint");
    refused(get("/no/such/page"), 404, "no page or endpoint at /no/such/page");
    refused(get("/assets/nothing.js"), 404, "no asset 'nothing.js'");
}

#[test]
fn the_pages_are_served() {
    for page in ["/", "/play", "/analyse", "/watch", "/assets/board.js", "/assets/style.css"] {
        let response = get(page);
        assert_eq!(response.status, 200, "{page}");
        assert!(!response.body.is_empty(), "{page}");
    }
    let agents = get("/api/agents").json();
    let names: Vec<&str> = agents.as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["az-connect4", "az-backgammon", "td-backgammon"]);
}

#[test]
fn a_whole_connect_four_game_against_the_agent_reaches_a_result() {
    // The person opens and always plays the leftmost legal column.
    let (mut moves, mut legal) = (String::new(), 1);
    for _ in 0..=21 {
        let reply = post("/api/connect4/move", json!({"moves": moves, "column": legal, "simulations": 8}));
        assert_eq!(reply.status, 200, "{}", reply.body);
        let reply = reply.json();
        let board = &reply["board"];
        moves = board["moves"].as_str().unwrap().to_string();
        if board["over"].as_bool().unwrap() {
            let winner = &board["winner"];
            assert!(winner.is_null() || winner == 1 || winner == 2, "{reply}");
            assert!(moves.len() >= 7, "{moves}");
            refused(post("/api/connect4/move", json!({"moves": moves, "column": 1})), 422, "the game is over");
            return;
        }
        assert_eq!(board["to_move"], 1, "{reply}");
        assert!(reply["agent_move"].as_u64().is_some(), "{reply}");
        legal = board["legal"][0].as_u64().unwrap();
    }
    panic!("no result after 42 moves: {moves}");
}

#[test]
fn a_pasted_position_id_gets_each_agents_play() {
    for (agent, alone) in [("td-backgammon", false), ("az-backgammon", false), ("az-backgammon", true)] {
        // The agent (O, seat 1) on roll at the start with 3-1.
        let setup = post("/api/backgammon/setup", json!({"text": "4HPwATDgc/ABMA 31", "player": 1}));
        assert_eq!(setup.status, 200, "{}", setup.body);
        let view = setup.json()["view"].clone();
        assert_eq!(view["to_play"], 1);
        assert_eq!(view["position_id"], "4HPwATDgc/ABMA");
        let request =
            json!({"state": view["state"], "human": 0, "agent": agent, "simulations": 4, "network_alone": alone});
        let reply = post("/api/backgammon/move", request);
        assert_eq!(reply.status, 200, "{}", reply.body);
        let reply = reply.json();
        let play = reply["agent_play"].as_str().unwrap();
        assert!(reply["events"][0].as_str().unwrap().starts_with(&format!("the agent rolls 3-1 and plays {play}")));
        // Back to the person, with the plays of a fresh roll to choose from.
        assert_eq!(reply["view"]["to_play"], 0, "{reply}");
        assert!(!reply["view"]["plays"].as_array().unwrap().is_empty());
        let analysis =
            post("/api/backgammon/analyse", json!({"state": view["state"], "agent": agent, "simulations": 4}));
        assert_eq!(analysis.status, 200, "{}", analysis.body);
        assert!(!analysis.json()["rows"].as_array().unwrap().is_empty());
    }
    // A Match ID says who is on roll: O with 3-1 here.
    let setup = post("/api/backgammon/setup", json!({"text": "4HPwATDgc/ABMA:cIkFAAAAAAAE", "player": 0})).json();
    assert_eq!(setup["view"]["to_play"], 1, "{setup}");
}

#[test]
fn the_analysis_shows_priors_visits_the_line_and_pons_scores() {
    let analysis = post("/api/connect4/analyse", json!({"moves": "", "simulations": 50})).json();
    let visits: u64 = analysis["visits"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).sum();
    assert!(visits >= 49, "{analysis}");
    let priors: f64 = analysis["priors"].as_array().unwrap().iter().map(|p| p.as_f64().unwrap()).sum();
    assert!((priors - 1.0).abs() < 1e-4, "{analysis}");
    assert!(!analysis["principal_variation"].as_array().unwrap().is_empty(), "{analysis}");
    assert!(analysis["pons_note"].as_str().unwrap().contains("not one of Pons' test positions"), "{analysis}");
    // The first position of the hardest opening set has exact scores.
    let line = first_pons_line("Test_L1_R3");
    let moves = line["moves"].as_str().unwrap();
    let analysis = post("/api/connect4/analyse", json!({"moves": moves, "simulations": 4})).json();
    assert_eq!(analysis["pons_scores"], line["move_scores"], "{analysis}");
    assert!(analysis["pons_note"].as_str().unwrap().contains("beginning hard"));
}

fn first_pons_line(set: &str) -> Value {
    use std::io::BufRead;
    let file = std::fs::File::open(repo().join(format!("data/connect4-pons/{set}.jsonl.gz"))).unwrap();
    let mut line = String::new();
    std::io::BufReader::new(flate2::read::GzDecoder::new(file)).read_line(&mut line).unwrap();
    serde_json::from_str(&line).unwrap()
}

#[test]
fn metrics_are_followed_from_an_offset_as_the_file_grows() {
    let run = std::env::temp_dir().join(format!("minnow-serve-metrics-{}", std::process::id()));
    std::fs::create_dir_all(&run).unwrap();
    let path = run.join("metrics.jsonl");
    std::fs::write(&path, "{\"step\":1,\"loss\":2.0}\n{\"step\":2,\"loss\":1.5}\n").unwrap();
    let url = |offset: u64| format!("/api/metrics?run={}&offset={offset}", run.display());
    let first = get(&url(0)).json();
    assert_eq!(first["lines"].as_array().unwrap().len(), 2, "{first}");
    let offset = first["offset"].as_u64().unwrap();
    // A line appended, and half of the next: only the whole line is read.
    let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    file.write_all(b"{\"step\":3,\"loss\":1.0}\n{\"step\":4,\"lo").unwrap();
    let second = get(&url(offset)).json();
    assert_eq!(second["lines"], json!([{"step": 3, "loss": 1.0}]), "{second}");
    file.write_all(b"ss\":0.5}\n").unwrap();
    let third = get(&url(second["offset"].as_u64().unwrap())).json();
    assert_eq!(third["lines"], json!([{"step": 4, "loss": 0.5}]), "{third}");
    // A file rewritten shorter (a resumed run) starts over.
    std::fs::write(&path, "{\"step\":1,\"loss\":2.0}\n").unwrap();
    let again = get(&url(third["offset"].as_u64().unwrap())).json();
    assert_eq!((again["restarted"].as_bool(), again["lines"].as_array().unwrap().len()), (Some(true), 1));
    std::fs::remove_dir_all(&run).unwrap();
}

#[test]
fn a_logic_ca_grows_frame_by_frame() {
    let frames = get("/api/logic-ca/frames?seed=3&steps=5").json();
    let (h, w) = (frames["height"].as_u64().unwrap() as usize, frames["width"].as_u64().unwrap() as usize);
    let frames = frames["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 6);
    for frame in frames {
        let rows = frame.as_array().unwrap();
        assert_eq!(rows.len(), h);
        assert!(
            rows.iter()
                .all(|r| r.as_str().unwrap().len() == w && r.as_str().unwrap().chars().all(|c| "01".contains(c)))
        );
    }
}

#[test]
fn a_client_that_hangs_up_mid_search_leaves_the_server_answering() {
    use std::net::TcpStream;
    for _ in 0..3 {
        let body = json!({"moves": "", "simulations": 100_000}).to_string();
        let mut stream = TcpStream::connect(server()).unwrap();
        let head = format!(
            "POST /api/connect4/analyse HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        std::thread::sleep(Duration::from_millis(200));
        drop(stream);
    }
    let started = Instant::now();
    assert_eq!(get("/api/agents").status, 200);
    let small = post("/api/connect4/analyse", json!({"moves": "4", "simulations": 4}));
    assert_eq!(small.status, 200, "{}", small.body);
    // The hung-up searches stopped: a full 100k search in a debug build
    // would take far longer than this.
    assert!(started.elapsed() < Duration::from_secs(60), "{:?}", started.elapsed());
}

#[test]
fn two_hundred_requests_at_once_all_succeed() {
    let addr = server();
    let threads: Vec<_> = (0..200)
        .map(|i| {
            std::thread::spawn(move || {
                let response = match i % 4 {
                    0 => request(addr, "GET", "/api/agents", None, TIMEOUT),
                    1 => request(addr, "GET", "/play", None, TIMEOUT),
                    2 => request(
                        addr,
                        "POST",
                        "/api/connect4/move",
                        Some(r#"{"moves":"4","network_alone":true}"#),
                        TIMEOUT,
                    ),
                    _ => request(
                        addr,
                        "POST",
                        "/api/connect4/analyse",
                        Some(r#"{"moves":"44","simulations":2}"#),
                        TIMEOUT,
                    ),
                };
                response.map(|r| (r.status, r.body))
            })
        })
        .collect();
    for thread in threads {
        let (status, body) = thread.join().unwrap().unwrap();
        assert_eq!(status, 200, "{body}");
    }
}
