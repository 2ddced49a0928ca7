//! `agent-eval history FILE --svg OUT`: each cell's completion over the
//! recorded runs, with its 95% interval as an error bar, drawn as small
//! multiples: one panel per scenario, its cells' lines in it, and the
//! panel's key beside the plot (never over it; a label longer than the
//! key's width is cut with an ellipsis). The x axis is the recorded whole
//! runs in order (oldest left), each labelled with its commit and date;
//! the y axis completion (%). A run that moved beyond the previous run's
//! interval is marked with a triangle pointing the way it moved. A panel
//! is as tall as its key needs. The figures come from the results history
//! ([`crate::results::history`]); which cells are drawn is the caller's
//! choice (`agent-eval history` draws the ones that moved).

use super::chart_error::ChartError;
use plotters::coord::Shift;
use plotters::prelude::*;

const WIDTH: u32 = 1100;
/// The plot's share of a panel's width; the key takes the rest.
const PLOT_WIDTH: u32 = 640;
/// The height of a panel at least, and of a row of its key.
const PANEL_MIN: u32 = 260;
const KEY_ROW: u32 = 15;
const TITLE_HEIGHT: u32 = 40;
/// Characters of a key's label before it is cut.
const KEY_CHARS: usize = 62;

/// One cell's completion over the runs: (run position, value, interval),
/// all in 0..1.
#[derive(Debug, Clone, PartialEq)]
pub struct TrendLine {
    /// The scenario's panel it is drawn in.
    pub scenario: String,
    /// The cell, as the panel's key names it.
    pub label: String,
    pub points: Vec<(usize, f64, Option<[f64; 2]>)>,
    /// The points that moved beyond the previous run's interval: (run
    /// position, value, up).
    pub moves: Vec<(usize, f64, bool)>,
}

/// The x axis: one label per recorded run, in order (`3f2a9c1 2026-11-28`).
#[derive(Debug, Clone, Copy)]
pub struct Runs<'a> {
    pub labels: &'a [String],
}

/// Renders the trend chart of `lines` over the recorded `runs` as SVG.
pub fn render(title: &str, runs: Runs<'_>, lines: &[TrendLine]) -> Result<String, ChartError> {
    let mut svg = String::new();
    draw(title, runs, lines, &mut svg).map_err(|e| ChartError(e.to_string()))?;
    // Names come from scenario files: controls would make invalid XML.
    Ok(super::escape::xml_chars(&svg).into_owned())
}

/// The scenarios in the order their first line comes, each with its lines.
fn panels(lines: &[TrendLine]) -> Vec<(&str, Vec<&TrendLine>)> {
    let mut panels: Vec<(&str, Vec<&TrendLine>)> = Vec::new();
    for line in lines {
        match panels.iter_mut().find(|(s, _)| *s == line.scenario) {
            Some((_, members)) => members.push(line),
            None => panels.push((&line.scenario, vec![line])),
        }
    }
    panels
}

fn panel_height(cells: usize) -> u32 {
    PANEL_MIN.max(KEY_ROW * cells as u32 + 60)
}

fn draw<'a>(
    title: &str,
    runs: Runs<'_>,
    lines: &[TrendLine],
    svg: &'a mut String,
) -> Result<(), Box<dyn std::error::Error + 'a>> {
    let panels = panels(lines);
    let height = TITLE_HEIGHT
        + panels
            .iter()
            .map(|(_, members)| panel_height(members.len()))
            .sum::<u32>()
            .max(PANEL_MIN);
    let root = SVGBackend::with_string(svg, (WIDTH, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, mut rest) = root.split_vertically(TITLE_HEIGHT);
    top.draw(&Text::new(
        title.to_string(),
        (16, 10),
        ("sans-serif", 20).into_font(),
    ))?;
    for (scenario, members) in &panels {
        let (panel, below) = rest.split_vertically(panel_height(members.len()));
        draw_panel(&panel, scenario, runs, members)?;
        rest = below;
    }
    root.present()?;
    Ok(())
}

/// One scenario: its plot, and its key to the right of it.
fn draw_panel(
    panel: &DrawingArea<SVGBackend<'_>, Shift>,
    scenario: &str,
    runs: Runs<'_>,
    members: &[&TrendLine],
) -> Result<(), Box<dyn std::error::Error>> {
    let (plot, key) = panel.split_horizontally(PLOT_WIDTH);
    let count = runs.labels.len();
    let last = count.max(1) as f64;
    let mut chart = ChartBuilder::on(&plot)
        .caption(scenario, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(48)
        .build_cartesian_2d(0.5..last + 0.5, 0.0..100.0)?;
    chart
        .configure_mesh()
        .x_desc("recorded run: commit and date (oldest left)")
        .y_desc("completion (%)")
        .x_labels(count.clamp(1, 6) + 1)
        .x_label_formatter(&|x| run_label(runs.labels, *x))
        .light_line_style(WHITE)
        .draw()?;
    for (index, line) in members.iter().enumerate() {
        let colour = Palette99::pick(index).to_rgba();
        let centres: Vec<(f64, f64)> = line
            .points
            .iter()
            .map(|&(x, v, _)| (x as f64 + 1.0, v * 100.0))
            .collect();
        chart.draw_series(LineSeries::new(centres.clone(), colour.stroke_width(2)))?;
        chart.draw_series(centres.iter().map(|&p| Circle::new(p, 3, colour.filled())))?;
        chart.draw_series(line.points.iter().filter_map(|&(x, v, ci)| {
            let [lo, hi] = ci?;
            Some(ErrorBar::new_vertical(
                x as f64 + 1.0,
                lo * 100.0,
                v * 100.0,
                hi * 100.0,
                colour.stroke_width(1),
                6,
            ))
        }))?;
        // A move: a triangle pointing the way it went.
        chart.draw_series(line.moves.iter().map(|&(x, v, up)| {
            let tip: i32 = if up { -10 } else { 10 };
            EmptyElement::at((x as f64 + 1.0, v * 100.0))
                + Polygon::new(
                    vec![(0, tip), (6, -tip / 2), (-6, -tip / 2)],
                    colour.filled(),
                )
        }))?;
        let y = 34 + KEY_ROW as i32 * index as i32;
        key.draw(&PathElement::new(
            vec![(8, y), (28, y)],
            colour.stroke_width(3),
        ))?;
        key.draw(&Text::new(
            cut(&line.label, KEY_CHARS),
            (34, y - 6),
            ("sans-serif", 12).into_font(),
        ))?;
    }
    Ok(())
}

/// A tick's label: the run's commit and date at a whole number, nothing
/// between.
fn run_label(labels: &[String], x: f64) -> String {
    if (x - x.round()).abs() > 1e-6 || x < 1.0 {
        return String::new();
    }
    labels
        .get(x.round() as usize - 1)
        .cloned()
        .unwrap_or_default()
}

/// `text` cut to `max` characters with an ellipsis.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max - 1).collect();
    format!("{kept}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(scenario: &str, label: &str) -> TrendLine {
        TrendLine {
            scenario: scenario.into(),
            label: label.into(),
            points: vec![(0, 0.9, Some([0.8, 0.95])), (1, 0.5, Some([0.4, 0.6]))],
            moves: vec![(1, 0.5, false)],
        }
    }

    #[test]
    fn each_scenario_is_a_panel_with_its_key_beside_it() {
        let labels = [
            "3f2a9c1 2026-11-27".to_string(),
            "b7e01d4 2026-11-28".to_string(),
        ];
        let svg = render(
            "history",
            Runs { labels: &labels },
            &[
                line("docs_fixes", "todo=true"),
                line("docs_fixes", "todo=false"),
                line("dialects", "todo=true dialect=s03"),
            ],
        )
        .unwrap();
        assert!(svg.starts_with("<svg"));
        for text in [
            "docs_fixes",
            "dialects",
            "todo=true",
            "todo=false",
            "todo=true dialect=s03",
        ] {
            assert!(svg.contains(&format!("\n{text}\n</text>")), "{text}: {svg}");
        }
        assert!(svg.contains("<polyline") || svg.contains("<path"));
        // Each run is named by its commit and date on the x axis.
        for label in &labels {
            assert!(
                svg.contains(&format!("\n{label}\n</text>")),
                "{label}: {svg}"
            );
        }
        // Each line's move is marked: a filled triangle per move.
        assert_eq!(svg.matches("<polygon").count(), 3, "{svg}");
    }

    #[test]
    fn ticks_are_whole_runs() {
        let labels = ["a 2026-11-27".to_string(), "b 2026-11-28".to_string()];
        assert_eq!(run_label(&labels, 1.0), "a 2026-11-27");
        assert_eq!(run_label(&labels, 2.0), "b 2026-11-28");
        assert_eq!(run_label(&labels, 1.5), "");
        assert_eq!(run_label(&labels, 0.5), "");
        assert_eq!(run_label(&labels, 3.0), "");
        assert_eq!(cut("abcdef", 4), "abc…");
    }

    #[test]
    fn a_panel_grows_with_its_key() {
        assert_eq!(panel_height(2), PANEL_MIN);
        assert!(panel_height(90) >= 90 * KEY_ROW);
    }
}
