//! Ctrl-C interrupts a real-model request in flight: against a server on
//! loopback that accepts the connection and never answers, the request
//! (whose own timeout is ten minutes) ends as soon as the process-wide
//! cancellation is requested. In a process of its own
//! ([`support::run_alone`]): the request is process-wide, and would stop
//! the other tests of the shared binary.

use crate::support;
use agent_eval::llm::{Message, Model, ModelRequest};
use agent_eval::model::http::{
    AnthropicModel, AnthropicParams, ApiKey, Endpoint, HttpContext, Provider,
};
use std::io::Read;
use std::net::TcpListener;
use std::time::Duration;

#[test]
fn ctrl_c_interrupts_a_request_in_flight() {
    support::run_alone(
        module_path!(),
        "ctrl_c_interrupts_a_request_in_flight_alone",
        &[],
    );
}

#[test]
#[ignore = "run in a process of its own by ctrl_c_interrupts_a_request_in_flight"]
fn ctrl_c_interrupts_a_request_in_flight_alone() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    // Accepts, reads the request, says it has it, never answers (until
    // the test ends).
    let (received, request_arrived) = std::sync::mpsc::channel();
    let silent = std::thread::spawn(move || {
        let Ok((mut stream, _)) = listener.accept() else {
            return;
        };
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let mut buffer = [0u8; 4096];
        while matches!(stream.read(&mut buffer), Ok(n) if n > 0) {
            let _ = received.send(());
        }
    });
    let endpoint = Endpoint::new(Provider::Anthropic, &url, ApiKey::new("sk-test")).unwrap();
    let context = HttpContext::new().unwrap(); // a ten-minute request timeout
    let mut model =
        AnthropicModel::new(AnthropicParams::new("claude-fake"), endpoint, context, 0).unwrap();
    let (done, result) = std::sync::mpsc::channel();
    let asking = std::thread::spawn(move || {
        let messages = [Message::user_text("hello")];
        let outcome = model
            .respond(&ModelRequest {
                system: "s",
                messages: &messages,
                turn: agent_eval::llm::count_turn(&messages),
                tools: &[],
                unchanged: 0,
            })
            .map_err(|e| e.to_string());
        let _ = done.send(outcome);
    });
    // The request is in flight once the server holds its first bytes.
    request_arrived
        .recv_timeout(Duration::from_secs(60))
        .expect("the request reached the server");
    agent_eval::cancel::request();
    // Bounded only so a regression fails instead of hanging ten minutes.
    let outcome = result
        .recv_timeout(Duration::from_secs(60))
        .expect("the request ended once cancelled");
    agent_eval::cancel::reset();
    let error = outcome.expect_err("no answer came");
    assert!(error.contains("cancelled"), "{error}");
    asking.join().unwrap();
    drop(silent);
}
