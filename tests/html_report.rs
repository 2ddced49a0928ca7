//! The HTML report of a real run, opened in a real headless browser: the
//! DOM chromium builds from the file holds the cells, the comparisons, the
//! per-step rates and, listed by the page's own script under its
//! Content-Security-Policy, every run's transcript with a filter. Skipped, with a message saying so,
//! where no chromium is installed; failed in CI (tests/support/mod.rs).

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// How long the browser may take to load and dump the page.
const BROWSER_LIMIT: Duration = Duration::from_secs(90);

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|dir| dir.join(name))
                    .find(|p| p.is_file())
            })
        })
}

/// Runs chromium headless on `page` with `extra` arguments; returns its
/// stdout, or `None` when it did not finish in time (it is killed).
fn browse(browser: &Path, page: &Path, extra: &[String]) -> Option<String> {
    let profile = tempfile::tempdir().unwrap();
    let mut child = support::command(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    // Read stdout on a thread so a large DOM cannot block the browser.
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
        text
    });
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < BROWSER_LIMIT => {
                std::thread::sleep(Duration::from_millis(100));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    reader.join().ok()
}

#[test]
fn the_html_report_renders_in_a_browser() {
    let Some(browser) = chromium() else {
        support::skip_unless_required(
            "the_html_report_renders_in_a_browser: no chromium on PATH (install the Debian package `chromium`)",
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let out = support::agent_eval_command()
        .args(["run", "scenarios/simulated/docs_fixes.yaml", "--seeds", "8"])
        .arg("--html")
        .arg(&page)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    for outside in ["http://", "https://", "<link", "src=", "<img"] {
        assert!(
            !html.contains(outside),
            "the page refers outside: {outside}"
        );
    }
    // One inline script, allowed by the page's policy by its hash.
    assert_eq!(html.matches("<script>").count(), 1);
    assert!(html.contains("Content-Security-Policy") && html.contains("default-src 'none'"));
    let Some(dom) = browse(&browser, &page, &["--dump-dom".to_string()]) else {
        panic!("chromium did not dump the page within {BROWSER_LIMIT:?}");
    };
    assert!(dom.contains("<h2>docs-fixes</h2>"), "the scenario: {dom}");
    assert!(
        dom.contains("todo=true nag_threshold=3") && dom.contains("todo=false"),
        "the cells"
    );
    assert!(dom.contains("steps done (95% CI)"), "the intervals");
    assert!(dom.contains("Paired comparisons"), "the comparisons");
    assert!(dom.contains("todo tool (nag 3)"), "a comparison row");
    assert!(dom.contains("Per-step completion"), "the per-step rates");
    assert!(dom.contains("#5 Link the usage page from the index"));
    // Without --log-dir the page still holds every run's transcript (3
    // cells × 8 seeds), listed by the script (so its policy let it run)
    // with a filter, each built when opened.
    assert!(dom.contains("Transcripts (24 runs)"), "every run");
    assert!(
        dom.contains("24 of 24 runs match"),
        "the script listed the runs"
    );
    assert!(
        dom.contains("<option value=\"\">every cell</option><option"),
        "the cell filter"
    );
    assert!(dom.contains("dropped a step"), "the outcome filter");
    assert!(
        dom.contains("<details class=\"run ok\">"),
        "a passing run is listed"
    );
    assert!(dom.contains("seed 7 · "), "the last seed is listed");

    // A screenshot, for a person to look at (kept when asked to).
    let shot = dir.path().join("report.png");
    let taken = browse(
        &browser,
        &page,
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1300,1600".to_string(),
        ],
    );
    assert!(taken.is_some(), "the screenshot finished in time");
    assert!(
        std::fs::metadata(&shot).is_ok_and(|m| m.len() > 10_000),
        "a screenshot was written"
    );
    if let Some(keep) = std::env::var_os("AGENT_EVAL_KEEP_SCREENSHOT") {
        let _ = std::fs::copy(&shot, keep);
    }
}

/// The page of a run of the shipped dialects matrix (few seeds: the order
/// and the words are what is checked, not the figures).
fn dialects_page() -> String {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let output = support::agent_eval_in(Path::new(env!("CARGO_MANIFEST_DIR")))
        .args([
            "run",
            "scenarios/dialects.yaml",
            "--seeds",
            "10",
            "-q",
            "--html",
        ])
        .arg(&page)
        .output()
        .unwrap();
    assert!(output.status.code().is_some_and(|c| c <= 1), "{output:?}");
    std::fs::read_to_string(&page).unwrap()
}

#[test]
fn the_html_report_opens_with_its_headline_before_any_table() {
    let page = dialects_page();
    let at = |needle: &str| {
        page.find(needle)
            .unwrap_or_else(|| panic!("{needle} is on the page"))
    };
    let headline = at("<section class=\"headline\"");
    let headline_end = headline + page[headline..].find("</section>").unwrap();
    // The verdict, the figures and the chart come before the 37 cell
    // rows and the comparisons.
    assert!(headline < at("<table class=\"cells\""));
    assert!(headline_end < at("<table class=\"cells\""));
    assert!(headline_end < at("Paired comparisons"));
    let head = &page[headline..headline_end];
    assert!(
        head.contains("<p class=\"verdict ok\">1 scenario, 11 expectations: all held</p>")
            || head.contains("<p class=\"verdict fail\">1 scenario, 11 expectations: "),
        "{head}"
    );
    // What won, with its interval; by how much, with its interval and p.
    assert!(
        head.contains("<b>dialects</b>: best <code>todo=true dialect="),
        "{head}"
    );
    assert!(head.contains("% completion ["), "{head}");
    assert!(head.contains("lowest <code>todo=false</code>"), "{head}");
    assert!(head.contains("; largest difference: todo tool ("), "{head}");
    assert!(head.contains(" pts [+"), "{head}");
    // The chart: the best and the lowest cell, each with a whisker.
    assert!(head.contains("<svg width="), "{head}");
    assert_eq!(head.matches("<rect ").count(), 2, "{head}");
    assert_eq!(head.matches("<line ").count(), 2, "{head}");
}
