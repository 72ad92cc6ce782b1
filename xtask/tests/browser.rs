//! The pages in a real browser (run explicitly: `cargo test -p xtask
//! --test browser -- --ignored`; needs `chromedriver` and Chromium). The
//! server runs in this process on a free loopback port; the test speaks
//! the W3C WebDriver protocol to chromedriver over plain HTTP, plays a
//! whole connect-four game by clicking columns, pastes a backgammon
//! Position ID and sees the agent's play, analyses a position, and follows
//! a run's curves as its metrics grow. Screenshots of each page land in
//! `target/browser/`.

use minnow_serve::ServeConfig;
use minnow_serve::testing::{request, spawn};
use serde_json::{Value, json};
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(120);
/// The W3C name of an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// chromedriver, ended when dropped.
struct Driver {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Driver {
    fn start() -> Self {
        let port = free_port();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver: install chromium-driver (apt-get install chromium chromium-driver)");
        let driver = Self { child, addr: SocketAddr::from(([127, 0, 0, 1], port)) };
        let started = Instant::now();
        while request(driver.addr, "GET", "/status", None, TIMEOUT)
            .map(|r| r.json()["value"]["ready"] != true)
            .unwrap_or(true)
        {
            assert!(started.elapsed() < Duration::from_secs(30), "chromedriver did not become ready");
            std::thread::sleep(Duration::from_millis(100));
        }
        driver
    }

    /// One WebDriver command; a WebDriver error fails the test with its message.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let body = body.map(|b| b.to_string());
        let response = request(self.addr, method, path, body.as_deref(), TIMEOUT).unwrap();
        let value = response.json()["value"].clone();
        assert_eq!(response.status, 200, "{method} {path}: {value}");
        value
    }
}

/// A browser session.
struct Session<'a> {
    driver: &'a Driver,
    id: String,
}

impl<'a> Session<'a> {
    fn new(driver: &'a Driver) -> Self {
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium(),
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1100,820"]
            }
        }}});
        let value = driver.call("POST", "/session", Some(capabilities));
        let id = value["sessionId"].as_str().unwrap_or_else(|| panic!("new session: {value}"));
        Self { driver, id: id.to_string() }
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.driver.call(method, &format!("/session/{}{path}", self.id), body)
    }

    fn open(&self, url: &str) {
        self.call("POST", "/url", Some(json!({"url": url})));
    }

    fn find(&self, css: &str) -> String {
        let found = self.call("POST", "/element", Some(json!({"using": "css selector", "value": css})));
        found[ELEMENT].as_str().unwrap_or_else(|| panic!("find {css}: {found}")).to_string()
    }

    fn click(&self, css: &str) {
        let element = self.find(css);
        self.call("POST", &format!("/element/{element}/click"), Some(json!({})));
    }

    fn type_into(&self, css: &str, text: &str) {
        let element = self.find(css);
        self.call("POST", &format!("/element/{element}/clear"), Some(json!({})));
        self.call("POST", &format!("/element/{element}/value"), Some(json!({"text": text})));
    }

    fn script(&self, script: &str) -> Value {
        self.call("POST", "/execute/sync", Some(json!({"script": script, "args": []})))
    }

    fn text(&self, css: &str) -> String {
        self.script(&format!("const e = document.querySelector({css:?}); return e ? e.textContent : '';"))
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Waits until `check` returns something, polling the page.
    fn wait_for<T>(&self, what: &str, mut check: impl FnMut(&Self) -> Option<T>) -> T {
        let started = Instant::now();
        loop {
            if let Some(found) = check(self) {
                return found;
            }
            let error = self.text("#error");
            assert!(error.is_empty(), "waiting for {what}, the page shows an error: {error}");
            assert!(started.elapsed() < TIMEOUT, "waited {TIMEOUT:?} for {what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn screenshot(&self, name: &str) -> PathBuf {
        let data = self.call("GET", "/screenshot", None);
        let dir = repo().join("target/browser");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, base64_decode(data.as_str().unwrap())).unwrap();
        path
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        let _ = request(self.driver.addr, "DELETE", &format!("/session/{}", self.id), None, TIMEOUT);
    }
}

fn chromium() -> &'static str {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .unwrap_or("/usr/bin/chromium")
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("screenshot: '{}' is not base64", c as char),
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=' && !c.is_ascii_whitespace()).map(value).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let bits = chunk.iter().enumerate().fold(0u32, |acc, (i, &d)| acc | (d as u32) << (18 - 6 * i));
        out.extend_from_slice(&bits.to_be_bytes()[1..chunk.len()]);
    }
    out
}

#[test]
#[ignore = "needs chromedriver and Chromium: cargo test -p xtask --test browser -- --ignored"]
fn the_pages_work_in_a_browser() {
    let server = spawn(&ServeConfig { agents_dir: repo().join("agents"), checkpoints: Vec::new() }).unwrap();
    let base = format!("http://{server}");
    let driver = Driver::start();
    let browser = Session::new(&driver);

    // A whole connect-four game, clicking the leftmost legal column.
    browser.open(&format!("{base}/play"));
    browser.wait_for("the board", |b| b.text("#status").contains("Your move").then_some(()));
    browser.type_into("#simulations", "16");
    let mut clicks = 0;
    let result = loop {
        let status = browser.wait_for("my turn or the end", |b| {
            let s = b.text("#status");
            (s.contains("Your move") || s.contains("Game over")).then_some(s)
        });
        if status.contains("Game over") {
            break status;
        }
        let column = browser.script("return c4.legal[0];").as_u64().unwrap();
        browser.click(&format!("#c4board g.column[data-column='{column}'] circle"));
        clicks += 1;
        assert!(clicks <= 21, "no result after {clicks} moves");
        browser.wait_for("the agent's reply", |b| (b.script("return busy;") == false).then_some(()));
    };
    assert!(result.contains("you win") || result.contains("the agent wins") || result.contains("a draw"));
    let moves = browser.script("return c4.moves;");
    assert!(moves.as_str().unwrap().len() >= 7, "{moves}");
    browser.screenshot("play-connect4");

    // A pasted Position ID with the agent on roll: the agent plays it.
    browser.script("$('game').value = 'backgammon'; $('game').dispatchEvent(new Event('change')); return 0;");
    browser
        .wait_for("a backgammon board", |b| (b.script("return !busy && $('ids').value !== '';") == true).then_some(()));
    browser.type_into("#paste", "4HPwATDgc/ABMA 31");
    browser.click("#setup");
    let played = browser.wait_for("the agent's play", |b| {
        let log = b.text("#log");
        log.contains("the agent rolls 3-1 and plays").then_some(log)
    });
    assert!(browser.text("#status").contains("choose a play"), "{played}");
    browser.screenshot("play-backgammon");

    // The analysis of a connect-four position.
    browser.open(&format!("{base}/analyse?game=connect4&moves=4453"));
    let line = browser.wait_for("the principal variation", |b| Some(b.text("#pv")).filter(|t| !t.is_empty()));
    assert!(line.split(' ').all(|c| ("1"..="7").contains(&c)), "{line}");
    browser.screenshot("analyse-connect4");

    // A run's curves, growing as lines are appended.
    let run = repo().join("target/browser/run");
    std::fs::create_dir_all(&run).unwrap();
    let lines: String = (1..=40)
        .map(|s| format!("{{\"step\":{s},\"loss\":{},\"accuracy\":{}}}\n", 2.0 / s as f64, 1.0 - 1.0 / s as f64))
        .collect();
    std::fs::write(run.join("metrics.jsonl"), lines).unwrap();
    browser.open(&format!("{base}/watch?run={}", run.display()));
    browser.wait_for("two curves", |b| {
        (b.script("return document.querySelectorAll('svg.chart').length") == 2).then_some(())
    });
    let mut file = std::fs::OpenOptions::new().append(true).open(run.join("metrics.jsonl")).unwrap();
    for s in 41..=60 {
        writeln!(file, "{{\"step\":{s},\"loss\":{},\"accuracy\":{}}}", 2.0 / s as f64, 1.0 - 1.0 / s as f64).unwrap();
    }
    browser.wait_for("the appended lines", |b| b.text("#lines").starts_with("60 lines").then_some(()));
    browser.click("#grow");
    browser.wait_for("the CA's last frame", |b| b.text("#frame").contains("frame 20 of 20").then_some(()));
    browser.screenshot("watch");
}
