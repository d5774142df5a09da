//! Standard input and output of `memlens mcp`. Every line the client sends that is not
//! a JSON-RPC message is answered with the error JSON-RPC calls for (-32700 for text that
//! is not JSON, -32600 for JSON that is not a JSON-RPC 2.0 object), where the protocol
//! library would pass over it in silence and leave the client waiting; the other lines
//! reach the server. Lines out are written whole, one after another, so an error never
//! lands inside one of the server's messages.
//!
//! Requests are served one at a time, in the order they came: a request reaches the
//! server once the one before it is answered. The protocol library runs each request on
//! a task of its own, so a client that sends several without waiting (an update, then a
//! read of what it wrote) would otherwise see them applied in any order.

use crate::model::json::kind_of;
use serde_json::{Value, json};
use std::future::Future;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

/// Bytes either pipe between the lines and the server holds before the writer waits.
const PIPE_BYTES: usize = 1 << 16;

/// How long the next request waits for the answer to the one before it at most: a
/// guard, should the server ever leave a request unanswered, so that the session goes
/// on (out of order) rather than hanging.
const ANSWER_WAIT: Duration = Duration::from_secs(60);

/// The server's input and output, and what carries lines between them and `input`
/// and `output`: it ends once the server has dropped its output and every line of
/// it is written (a line still coming in is then dropped).
pub(super) fn lines<R, W>(
    input: R,
    output: W,
) -> ((DuplexStream, DuplexStream), impl Future<Output = ()>)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (mut to_server, server_reads) = tokio::io::duplex(PIPE_BYTES);
    let (server_writes, from_server) = tokio::io::duplex(PIPE_BYTES);
    let (out, mut lines_out) = unbounded_channel::<Vec<u8>>();
    let replies = out.clone();
    let (answered, mut answers) = unbounded_channel::<()>();
    let reading = tokio::spawn(async move {
        let mut lines = BufReader::new(input).split(b'\n');
        let mut initialized = false;
        while let Ok(Some(line)) = lines.next_segment().await {
            let mut line = mend_surrogates(line);
            match check(&line, initialized) {
                Check::Pass(kind) => {
                    initialized |= kind == Message::Initialize;
                    // answers to anything not waited for are not this one's
                    while answers.try_recv().is_ok() {}
                    line.push(b'\n');
                    if to_server.write_all(&line).await.is_err() {
                        break;
                    }
                    if kind != Message::Other && !answer_of(&mut answers).await {
                        break;
                    }
                }
                Check::Skip => {}
                Check::Answer(reply) => {
                    let _ = replies.send(reply);
                }
            }
        }
        // the client closed its side: so does the server's input
        let _ = to_server.shutdown().await;
    });
    let forwarding = forward(from_server, out, answered);
    let carried = async move {
        let writing = tokio::spawn(async move {
            let mut output = output;
            while let Some(line) = lines_out.recv().await {
                if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                    break;
                }
            }
        });
        forwarding.await;
        reading.abort();
        let _ = reading.await;
        let _ = writing.await;
    };
    ((server_reads, server_writes), carried)
}

/// Waits for the server's next answer (or [`ANSWER_WAIT`]); false once the server has
/// stopped answering for good.
async fn answer_of(answers: &mut UnboundedReceiver<()>) -> bool {
    match tokio::time::timeout(ANSWER_WAIT, answers.recv()).await {
        Ok(got) => got.is_some(),
        Err(_) => true,
    }
}

/// Sends each line the server writes to `out`, whole, until the server drops its output,
/// telling `answered` of each answer (a result or an error) once it is on its way.
async fn forward(
    from_server: DuplexStream,
    out: UnboundedSender<Vec<u8>>,
    answered: UnboundedSender<()>,
) {
    let mut lines = BufReader::new(from_server).split(b'\n');
    while let Ok(Some(mut line)) = lines.next_segment().await {
        let answer = is_answer(&line);
        line.push(b'\n');
        if out.send(line).is_err() {
            break;
        }
        if answer {
            let _ = answered.send(());
        }
    }
}

/// Whether a line the server wrote answers a request: a result or an error (with the
/// request's id, or none when the request could not be read), not a notification or a
/// request of the server's own.
fn is_answer(line: &[u8]) -> bool {
    // the keys alone: a search's answer is not built into a tree to be looked at
    #[derive(serde::Deserialize)]
    struct Keys {
        #[serde(default)]
        method: Present,
        #[serde(default)]
        result: Present,
        #[serde(default)]
        error: Present,
    }
    serde_json::from_slice::<Keys>(line).is_ok_and(|k| !k.method.0 && (k.result.0 || k.error.0))
}

/// Whether an object has a key, whatever its value (`null` too), which is skipped.
#[derive(Default)]
struct Present(bool);

impl<'de> serde::Deserialize<'de> for Present {
    fn deserialize<D: serde::Deserializer<'de>>(value: D) -> Result<Present, D::Error> {
        serde::de::IgnoredAny::deserialize(value).map(|_| Present(true))
    }
}

/// What becomes of a line from the client.
#[derive(Debug, PartialEq)]
enum Check {
    /// A JSON-RPC message: for the server.
    Pass(Message),
    /// A blank line: nothing.
    Skip,
    /// Not a message: this error line answers it.
    Answer(Vec<u8>),
}

/// What kind of message a line passed to the server is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Message {
    /// A request (a method and an id): the server answers it, and the next request
    /// waits for that answer.
    Request,
    /// The `initialize` request, with its params: after it, any request may come.
    Initialize,
    /// A notification or an answer to the server: nothing to wait for.
    Other,
}

/// The longest line the protocol library reads, newline included; it drops a longer one
/// unanswered, so it is answered here.
const LONGEST_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// `line` with every escaped UTF-16 surrogate that is not one of a pair (`"\ud83d"`
/// alone, as a JavaScript client writes a string it cut inside an emoji) made the
/// replacement character `\ufffd`: JSON parsers refuse such a line, and the request it
/// carries would go unanswered for want of its id. Anything else is left as it is.
fn mend_surrogates(line: Vec<u8>) -> Vec<u8> {
    /// The surrogate a `\uXXXX` escape at `at` (its backslash) names: 1 for a leading
    /// one, 2 for a trailing one, 0 for another escape or none.
    fn surrogate_at(line: &[u8], at: usize) -> u8 {
        let Some(hex) = line.get(at + 2..at + 6) else {
            return 0;
        };
        let Some(unit) = std::str::from_utf8(hex)
            .ok()
            .and_then(|h| u16::from_str_radix(h, 16).ok())
        else {
            return 0;
        };
        match unit {
            0xD800..=0xDBFF if line.get(at + 1) == Some(&b'u') => 1,
            0xDC00..=0xDFFF if line.get(at + 1) == Some(&b'u') => 2,
            _ => 0,
        }
    }
    if !line
        .windows(3)
        .any(|w| w[0] == b'\\' && w[1] == b'u' && matches!(w[2], b'd' | b'D'))
    {
        return line;
    }
    let mut out = Vec::with_capacity(line.len());
    let mut at = 0;
    while at < line.len() {
        if line[at] != b'\\' {
            out.push(line[at]);
            at += 1;
            continue;
        }
        let lone = match surrogate_at(&line, at) {
            1 if surrogate_at(&line, at + 6) == 2 => {
                // a pair: both escapes as they are
                out.extend_from_slice(&line[at..at + 12]);
                at += 12;
                continue;
            }
            0 => false,
            _ => true,
        };
        if lone {
            out.extend_from_slice(b"\\ufffd");
            at += 6;
        } else {
            // another escape (`\\`, `\"`, `\u0041`): its two first bytes as they are
            out.extend_from_slice(&line[at..(at + 2).min(line.len())]);
            at += 2;
        }
    }
    out
}

/// What becomes of `line`; before the session is `initialized`, a request other than
/// `initialize` or `ping` is answered here (the protocol library ends the session on
/// one), and so is an `initialize` without params.
fn check(line: &[u8], initialized: bool) -> Check {
    if line.len() >= LONGEST_LINE {
        return too_long(line);
    }
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Check::Skip;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(e) => return answer(Value::Null, -32700, format!("Parse error: {e}")),
    };
    let Value::Object(message) = &value else {
        if value.is_array() {
            // the protocol library refuses a batch with an error that has no id member
            return answer(
                Value::Null,
                -32600,
                "Invalid Request: a batch (a JSON array); memlens mcp reads one message a line, as MCP sends them".into(),
            );
        }
        return answer(
            Value::Null,
            -32600,
            "Invalid Request: a JSON-RPC message is an object".into(),
        );
    };
    let versioned = message.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
    let kind = ["method", "result", "error"]
        .iter()
        .any(|k| message.contains_key(*k));
    let id = answer_id(message.get("id").cloned());
    if versioned && kind {
        if !(message.contains_key("method") && message.contains_key("id")) {
            return Check::Pass(Message::Other);
        }
        if id.is_null() {
            // refused by the protocol library too, with no id member in its error
            return answer(
                id,
                -32600,
                "Invalid Request: a request's id is a string or a number".into(),
            );
        }
        if id.is_number() && id.as_i64().is_none() && id.as_u64().is_none() {
            // refused by the protocol library with no id member; answered with it
            return answer(
                id.clone(),
                -32600,
                format!(
                    "Invalid Request: the id {id} has a fraction; an id is a string or a whole number"
                ),
            );
        }
        return match message.get("method").and_then(Value::as_str) {
            Some("initialize") if message.get("params").is_some_and(Value::is_object) => {
                Check::Pass(Message::Initialize)
            }
            Some("initialize") => answer(
                id,
                -32602,
                "Invalid params: initialize takes params (protocolVersion, capabilities, clientInfo)".into(),
            ),
            Some("ping") => request(message, id),
            _ if !initialized => answer(
                id,
                -32002,
                "Server not initialized: the first request of a session is initialize".into(),
            ),
            _ => request(message, id),
        };
    }
    let missing = if versioned {
        "a method (or a result or an error)"
    } else {
        "\"jsonrpc\": \"2.0\""
    };
    answer(id, -32600, format!("Invalid Request: no {missing}"))
}

/// A request for the server, unless its params have the wrong shape: then the error
/// answering it, with its `id`.
fn request(message: &serde_json::Map<String, Value>, id: Value) -> Check {
    match misshapen_params(message) {
        Some(why) => answer(id, -32602, format!("Invalid params: {why}")),
        None => Check::Pass(Message::Request),
    }
}

/// What is wrong with the shape of a request's params, which the protocol library
/// answers with no id (params that are not an object: MCP names every param) or as a
/// method not found (a `tools/call` without a tool's name, or with arguments that are
/// no object); `None` when the shape is right (what the arguments hold is for the tool
/// to judge). Params of `null` are none, as the protocol library takes them.
fn misshapen_params(message: &serde_json::Map<String, Value>) -> Option<String> {
    let params = message.get("params").filter(|p| !p.is_null());
    if let Some(p) = params.filter(|p| !p.is_object()) {
        return Some(format!(
            "params is an object (MCP names every param), not {}",
            kind_of(p)
        ));
    }
    if message.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    let call = "tools/call takes params {\"name\": a tool's name, \"arguments\": an object}";
    let Some(Value::Object(params)) = params else {
        return Some(format!("{call}; no params were given"));
    };
    match params.get("name") {
        Some(Value::String(_)) => {}
        Some(other) => return Some(format!("{call}; the name is {}", kind_of(other))),
        None => return Some(format!("{call}; no name was given")),
    }
    match params.get("arguments") {
        None | Some(Value::Null | Value::Object(_)) => None,
        Some(other) => Some(format!("{call}; the arguments are {}", kind_of(other))),
    }
}

/// The error for a line longer than [`LONGEST_LINE`], with the request's id when the line
/// is a JSON object that has one.
fn too_long(line: &[u8]) -> Check {
    #[derive(serde::Deserialize)]
    struct Id {
        #[serde(default)]
        id: Value,
    }
    let id = answer_id(serde_json::from_slice::<Id>(line).ok().map(|m| m.id));
    let message = format!(
        "Invalid Request: a message of {} bytes; memlens mcp reads messages of less than {} bytes (16 MiB)",
        line.len(),
        LONGEST_LINE
    );
    answer(id, -32600, message)
}

/// The id an error answer carries: the request's when it is one JSON-RPC allows (a
/// string or a number), else null.
fn answer_id(id: Option<Value>) -> Value {
    id.filter(|id| id.is_string() || id.is_number())
        .unwrap_or(Value::Null)
}

fn answer(id: Value, code: i64, message: String) -> Check {
    let reply = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    let mut line = reply.to_string().into_bytes();
    line.push(b'\n');
    Check::Answer(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(line: &str) -> Value {
        match check(line.as_bytes(), true) {
            Check::Answer(bytes) => serde_json::from_slice(&bytes).expect("a JSON line"),
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn a_tool_call_of_the_wrong_shape_is_invalid_params_with_its_id() {
        // the protocol library answered these -32601 "tools/call" (or -32600 without
        // the id), which reads as a server without tools
        for (params, says) in [
            (r#""x""#, "not a string"),
            ("5", "not a number"),
            (
                r#"{"name":"mem_get","arguments":"id"}"#,
                "the arguments are a string",
            ),
            (
                r#"{"name":"mem_get","arguments":[1]}"#,
                "the arguments are an array",
            ),
            (r#"{"name":5,"arguments":{}}"#, "the name is a number"),
            (r#"{"arguments":{}}"#, "no name was given"),
            ("[1]", "not an array"),
            ("null", "no params were given"),
        ] {
            let line =
                format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{params}}}"#);
            let v = reply(&line);
            assert_eq!(
                (&v["id"], &v["error"]["code"]),
                (&json!(7), &json!(-32602)),
                "{line}"
            );
            let message = v["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains(says), "{line}: {message}");
        }
        let bare = reply(r#"{"jsonrpc":"2.0","id":"b","method":"tools/call"}"#);
        assert_eq!(
            (&bare["id"], &bare["error"]["code"]),
            (&json!("b"), &json!(-32602))
        );
        let message = bare["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("no params were given"), "{message}");
        // the right shape reaches the server, which judges the arguments themselves;
        // params of null are none, as the protocol library takes them
        for (method, params) in [
            ("tools/call", r#"{"name":"mem_get","arguments":{"id":"x"}}"#),
            ("tools/call", r#"{"name":"mem_get","arguments":null}"#),
            ("tools/call", r#"{"name":"mem_get"}"#),
            ("tools/call", r#"{"name":"no_such_tool","arguments":{}}"#),
            ("tools/list", "{}"),
            ("tools/list", "null"),
        ] {
            let line =
                format!(r#"{{"jsonrpc":"2.0","id":8,"method":"{method}","params":{params}}}"#);
            assert_eq!(
                check(line.as_bytes(), true),
                Check::Pass(Message::Request),
                "{line}"
            );
        }
        // an array is no MCP params for any method
        for method in ["tools/list", "ping"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":10,"method":"{method}","params":[]}}"#);
            let v = reply(&line);
            assert_eq!(
                (&v["id"], &v["error"]["code"]),
                (&json!(10), &json!(-32602)),
                "{line}"
            );
        }
    }

    #[test]
    fn before_initialize_only_initialize_and_ping_reach_the_server() {
        let early = |line: &str| match check(line.as_bytes(), false) {
            Check::Answer(bytes) => {
                let v: Value = serde_json::from_slice(&bytes).expect("a JSON line");
                (v["id"].clone(), v["error"]["code"].clone())
            }
            other => panic!("{line}: {other:?}"),
        };
        assert_eq!(
            early(r#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#),
            (json!(4), json!(-32002))
        );
        assert_eq!(
            early(r#"{"jsonrpc":"2.0","id":"i","method":"initialize"}"#),
            (json!("i"), json!(-32602))
        );
        let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
        assert_eq!(
            check(init.as_bytes(), false),
            Check::Pass(Message::Initialize)
        );
        let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
        assert_eq!(check(ping.as_bytes(), false), Check::Pass(Message::Request));
        let list = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#;
        assert_eq!(check(list.as_bytes(), true), Check::Pass(Message::Request));
        let told = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert_eq!(check(told.as_bytes(), false), Check::Pass(Message::Other));
    }

    #[test]
    fn a_line_the_protocol_library_would_drop_for_its_length_is_answered_with_its_id() {
        let fits = format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"ping","params":{{"q":"{}"}}}}"#,
            "a".repeat(LONGEST_LINE - 100)
        );
        assert!(fits.len() < LONGEST_LINE);
        assert_eq!(check(fits.as_bytes(), true), Check::Pass(Message::Request));
        let long = fits.replace("\"a", &format!("\"{}", "a".repeat(200)));
        assert!(long.len() >= LONGEST_LINE);
        let answer = reply(&long);
        assert_eq!(
            (answer["id"].clone(), answer["error"]["code"].clone()),
            (json!(9), json!(-32600))
        );
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("16 MiB"),
            "{answer}"
        );
        let not_json = "x".repeat(LONGEST_LINE);
        assert_eq!(reply(&not_json)["id"], Value::Null);
    }

    /// A lone escaped surrogate becomes U+FFFD, so the line parses and its request is
    /// answered; pairs, other escapes and an escaped backslash before `ud800` stay.
    #[test]
    fn lone_surrogates_are_mended_and_pairs_and_other_escapes_kept() {
        let mended =
            |text: &str| String::from_utf8(mend_surrogates(text.as_bytes().to_vec())).unwrap();
        let cases = [
            (r#"{"q":"emoji \ud83d"}"#, r#"{"q":"emoji \ufffd"}"#),
            (r#"{"q":"\uDE00 x"}"#, r#"{"q":"\ufffd x"}"#),
            (r#"{"q":"\ud83d\ude00"}"#, r#"{"q":"\ud83d\ude00"}"#),
            (r#"{"q":"\\ud83d"}"#, r#"{"q":"\\ud83d"}"#),
            (r#"{"q":"\u0041\"\\"}"#, r#"{"q":"\u0041\"\\"}"#),
            (
                r#"{"q":"\ud83d\ud83d\ude00"}"#,
                r#"{"q":"\ufffd\ud83d\ude00"}"#,
            ),
        ];
        for (line, want) in cases {
            assert_eq!(mended(line), want, "{line}");
            let parsed: Result<Value, _> = serde_json::from_str(&mended(line));
            assert!(parsed.is_ok(), "{line}");
        }
    }

    #[test]
    fn lines_that_are_not_messages_get_the_error_json_rpc_calls_for() {
        let not_json = reply("{not json");
        assert_eq!(not_json["error"]["code"], -32700);
        assert_eq!(not_json["id"], Value::Null);
        assert_eq!(not_json["jsonrpc"], "2.0");
        assert_eq!(reply("\"hello\"")["error"]["code"], -32600);
        let unversioned = reply(r#"{"id": 7, "method": "ping"}"#);
        assert_eq!(
            (
                unversioned["id"].clone(),
                unversioned["error"]["code"].clone()
            ),
            (json!(7), json!(-32600))
        );
        assert_eq!(reply(r#"{"jsonrpc": "2.0", "id": "a"}"#)["id"], "a");
        for (pass, kind) in [
            (
                r#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#,
                Message::Request,
            ),
            (
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\r",
                Message::Other,
            ),
            (
                r#"{"jsonrpc": "2.0", "id": 1, "result": {}}"#,
                Message::Other,
            ),
        ] {
            assert_eq!(check(pass.as_bytes(), true), Check::Pass(kind), "{pass}");
        }
        // a batch and a request whose id is no string or number: -32600 with an id
        // member of null (the protocol library's own error had none)
        for line in [
            r#"[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]"#,
            "[]",
            r#"{"jsonrpc": "2.0", "id": null, "method": "ping"}"#,
            r#"{"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}"#,
            r#"{"jsonrpc": "2.0", "id": true, "method": "tools/list"}"#,
        ] {
            let v = reply(line);
            let error = v.as_object().and_then(|o| o.get("id"));
            assert_eq!(error, Some(&Value::Null), "{line}: {v}");
            assert_eq!(v["error"]["code"], -32600, "{line}");
        }
        // an id with a fraction: -32600 carrying that id
        let v = reply(r#"{"jsonrpc": "2.0", "id": 12.5, "method": "tools/list"}"#);
        assert_eq!(
            (v["id"].clone(), v["error"]["code"].clone()),
            (json!(12.5), json!(-32600))
        );
        assert!(
            v["error"]["message"].as_str().unwrap().contains("12.5"),
            "{v}"
        );
        assert_eq!(check(b"  \r", true), Check::Skip);
    }

    #[test]
    fn an_answer_is_a_result_or_an_error_that_is_no_request() {
        for (line, answer) in [
            (
                r#"{"jsonrpc":"2.0","id":1,"result":{"content":[1,2]}}"#,
                true,
            ),
            (r#"{"jsonrpc":"2.0","id":1,"result":null}"#, true),
            (
                r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}"#,
                true,
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#,
                false,
            ),
            (r#"{"jsonrpc":"2.0","id":9,"method":"roots/list"}"#, false),
            ("not json", false),
            ("[1]", false),
        ] {
            assert_eq!(is_answer(line.as_bytes()), answer, "{line}");
        }
    }
}
