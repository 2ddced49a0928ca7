//! `agent-eval history FILE --html OUT`: the trend chart (the same SVG as
//! `--svg`, inline: the cells that moved, flapped or changed profile, each
//! move marked, commit and date on the x axis), those cells' recorded runs
//! as tables with moves beyond the interval and flapping cells marked, and
//! the steady cells' tables folded under one line that counts them. One
//! self-contained page:
//! no script, no fetched asset; every text from the history (scenario
//! names, settings, branches, commits) goes through
//! [`super::escape::html`].

use std::fmt::Write;

use super::escape::html as esc;
use crate::results::history::{CellTrend, Direction, FLAP_CHANGES, FLAP_WINDOW, TrendPoint};

const STYLE: &str = "
body { font-family: system-ui, sans-serif; margin: 2rem; color: #1f2328; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.6rem; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.up { color: #1a7f37; font-weight: 600; }
.down { color: #cf222e; font-weight: 600; }
.flap { background: #fff8c5; border: 1px solid #d4a72c; padding: 0 0.4rem; }
.chart svg { max-width: 100%; height: auto; }
details.steady > summary { cursor: pointer; color: #57606a; margin: 1rem 0; }
";

/// The page: `title`, the inline `svg` chart and one table per cell.
pub fn render(title: &str, svg: &str, trends: &[CellTrend]) -> String {
    let mut page = String::new();
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        esc(title),
        esc(title)
    );
    let _ = writeln!(
        page,
        "<p>Each point is one recorded whole run; the bar is its 95% interval. \
         <span class=\"up\">moved up</span> / <span class=\"down\">moved down</span>: \
         the completion left the previous run's interval. \
         <span class=\"flap\">flapping</span>: its moves changed direction at least \
         {FLAP_CHANGES} times in the last {FLAP_WINDOW} runs.</p>"
    );
    let (eventful, steady): (Vec<&CellTrend>, Vec<&CellTrend>) =
        trends.iter().partition(|t| t.eventful());
    if trends.is_empty() {
        page.push_str("<p>No whole runs recorded yet.</p>\n");
    } else if eventful.is_empty() {
        page.push_str(
            "<p class=\"calm\">No cell moved, flapped or changed profile: no chart to draw.</p>\n",
        );
    } else {
        let start = svg.find("<svg").unwrap_or(svg.len());
        let chart = svg.get(start..).unwrap_or("");
        let _ = writeln!(page, "<div class=\"chart\">{chart}</div>");
    }
    page.push_str(&tables(&eventful));
    if !steady.is_empty() {
        let complete = steady.iter().filter(|t| t.always_complete()).count();
        let _ = writeln!(
            page,
            "<details class=\"steady\"><summary>{} steady cell{}: no run left the previous run's \
             95% interval ({complete} of them at 100.0% in every run)</summary>",
            steady.len(),
            if steady.len() == 1 { "" } else { "s" }
        );
        page.push_str(&tables(&steady));
        page.push_str("</details>\n");
    }
    page.push_str("</body>\n</html>\n");
    crate::report::escape::drop_bidi_owned(page)
}

/// The cells' tables under their scenarios' names.
fn tables(trends: &[&CellTrend]) -> String {
    let mut html = String::new();
    let mut last_scenario = None;
    for trend in trends {
        if last_scenario != Some(&trend.scenario) {
            let _ = writeln!(html, "<h2>{}</h2>", esc(&trend.scenario));
            last_scenario = Some(&trend.scenario);
        }
        html.push_str(&cell_table(trend));
    }
    html
}

/// One cell's heading and the table of its runs.
fn cell_table(trend: &CellTrend) -> String {
    let mut html = String::new();
    let flap = if trend.flapping {
        format!(
            " <span class=\"flap\">flapping: {} changes of direction</span>",
            trend.direction_changes
        )
    } else {
        String::new()
    };
    let _ = writeln!(html, "<h3>{}{flap}</h3>", esc(&trend.settings));
    html.push_str(
        "<table>\n<tr><th>commit</th><th>recorded</th><th>branch</th><th>runs</th>\
         <th>completion</th><th>95% interval</th><th>move</th></tr>\n",
    );
    for point in &trend.runs {
        html.push_str(&row(point));
    }
    html.push_str("</table>\n");
    html
}

fn row(point: &TrendPoint) -> String {
    let cell = &point.cell;
    let [commit, recorded, branch] = point.row_columns();
    let pct = |x: f64| crate::results::format::percent(x, 1);
    let completion = cell.completion.map_or("-".into(), pct);
    let interval = cell
        .completion_ci95
        .map_or("-".into(), |[lo, hi]| format!("{} – {}", pct(lo), pct(hi)));
    let moved = match point.direction {
        Some(Direction::Up) => "<span class=\"up\">moved up</span>",
        Some(Direction::Down) => "<span class=\"down\">moved down</span>",
        None => "",
    };
    format!(
        "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td class=\"num\">{}</td>\
         <td class=\"num\">{completion}</td><td class=\"num\">{interval}</td><td>{moved}</td></tr>\n",
        esc(&commit),
        esc(&recorded),
        esc(&branch),
        cell.runs
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::history::{RecordedCell, trends};

    fn cell(invocation: i64, completion: f64, scenario: &str) -> RecordedCell {
        RecordedCell {
            invocation,
            recorded_at: "2026-11-25T10:00:00Z".into(),
            commit: Some("<b>abc</b>".into()),
            branch: Some("main\"><script>x</script>".into()),
            version: "0".into(),
            scenario: scenario.into(),
            scenario_sha256: None,
            settings: "todo=true".into(),
            runs: 50,
            completion: Some(completion),
            completion_ci95: Some([completion - 0.05, completion + 0.05]),
            full_completion: None,
            mean_tokens: None,
            profile: None,
        }
    }

    #[test]
    fn the_page_is_self_contained_escaped_and_marks_flaps() {
        let name = "a <script>alert(1)</script> & co";
        let cells = [0.5, 0.8, 0.5, 0.8]
            .iter()
            .enumerate()
            .map(|(i, &v)| cell(i as i64, v, name))
            .collect();
        let page = render("h.db", "<?xml?><svg></svg>", &trends(cells, None));
        assert!(page.contains("<svg></svg>") && !page.contains("<?xml"));
        assert!(!page.contains("<script>"), "{page}");
        assert!(page.contains("a &lt;script&gt;alert(1)&lt;/script&gt; &amp; co"));
        assert!(page.contains("main&quot;&gt;&lt;script&gt;"));
        assert!(page.contains("flapping: 2 changes of direction"));
        assert_eq!(page.matches("moved up").count(), 3, "2 rows and the key");
        assert!(
            !page.contains("src=") && !page.contains("href="),
            "nothing fetched"
        );
    }

    #[test]
    fn steady_cells_are_folded_after_the_ones_that_moved() {
        let mut cells: Vec<RecordedCell> = [0.5, 0.9]
            .iter()
            .enumerate()
            .map(|(i, &v)| cell(i as i64, v, "moving"))
            .collect();
        cells.extend((0..2).map(|i| cell(i, 1.0, "still")));
        let page = render("h.db", "<svg></svg>", &trends(cells, None));
        let moving = page.find("<h2>moving</h2>").unwrap();
        let folded = page
            .find("<details class=\"steady\"><summary>1 steady cell: no run left")
            .unwrap();
        let still = page.find("<h2>still</h2>").unwrap();
        assert!(moving < folded && folded < still, "{page}");
        assert!(
            page.contains("(1 of them at 100.0% in every run)"),
            "{page}"
        );
        // Nothing moved: no chart, said so.
        let calm = render(
            "h.db",
            "<svg></svg>",
            &trends((0..2).map(|i| cell(i, 1.0, "still")).collect(), None),
        );
        assert!(!calm.contains("<svg"), "{calm}");
        assert!(
            calm.contains("No cell moved, flapped or changed profile"),
            "{calm}"
        );
    }
}
