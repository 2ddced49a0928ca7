//! `sweep --svg FILE`: completion against its price in context, one point
//! per value of the swept axis (nag threshold by default).
//!
//! The x axis is the mean context tokens per run (what the value costs,
//! the sweep's cost), the y axis completion (%). Each value with the todo
//! tool is a point with its 95% interval as an error bar, named beside
//! it; the points are joined in the order given only when the axis is
//! ordered (nag threshold, a simulated-model parameter), never for a
//! category (dialect, reminder, placement). Names never overlap: a name
//! that would sit on an earlier one moves down, with a thin line to its
//! point. The baseline without the todo tool is a point of its own (it
//! pays no planning tokens). The recommended value (the pick) is ringed in
//! green and named in the legend. Up and to the left is better: more
//! completion for fewer tokens.

use super::chart_error::ChartError;
use plotters::prelude::*;

use crate::metric::{COMPLETION_RATE, MEAN_CONTEXT_TOKENS};
use crate::results::CellSummary;
use crate::results::format;
use crate::results::pick::SweepResult;
use crate::scenario::Axis;

const WIDTH: u32 = 900;
const HEIGHT: u32 = 540;
const TODO_COLOUR: RGBColor = RGBColor(31, 119, 180);
const BASELINE_COLOUR: RGBColor = RGBColor(214, 39, 40);
const PICK_COLOUR: RGBColor = RGBColor(44, 160, 44);

/// Renders the sweep chart as SVG text.
pub fn render(result: &SweepResult) -> Result<String, ChartError> {
    let mut svg = String::new();
    let drawn = draw(result, &mut svg).map_err(|e| ChartError(e.to_string()));
    drawn?;
    // Names come from scenario files: the writer escapes entities, but
    // controls would make the file invalid XML.
    Ok(super::escape::xml_chars(&svg).into_owned())
}

/// How the chart names the swept axis.
fn axis_title(axis: &str) -> String {
    if axis == "nag_threshold" {
        "nag threshold".into()
    } else {
        axis.into()
    }
}

/// A cell's point: (tokens per run, completion %), and its interval in %.
fn point(cell: &CellSummary) -> ((f64, f64), [f64; 2]) {
    let [lo, hi] = cell.interval(COMPLETION_RATE);
    (
        (
            cell.value(MEAN_CONTEXT_TOKENS),
            cell.value(COMPLETION_RATE) * 100.0,
        ),
        [lo * 100.0, hi * 100.0],
    )
}

fn draw<'a>(
    result: &SweepResult,
    svg: &'a mut String,
) -> Result<(), Box<dyn std::error::Error + 'a>> {
    let axis = crate::scenario::Axis::parse(&result.axis).ok();
    let labels: Vec<String> = result
        .with_todo
        .iter()
        .map(|c| {
            axis.as_ref()
                .and_then(|a| c.settings.get(a).map(ToString::to_string))
                .unwrap_or_else(|| "-".to_string())
        })
        .collect();
    let points: Vec<((f64, f64), [f64; 2])> = result.with_todo.iter().map(point).collect();
    let (base, base_ci) = point(&result.without_todo);
    let max_tokens = points
        .iter()
        .map(|((x, _), _)| *x)
        .chain([base.0])
        .fold(1.0_f64, f64::max)
        * 1.15;
    {
        let root = SVGBackend::with_string(svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!(
                    "{}: completion vs tokens, by {}",
                    result.scenario,
                    axis_title(&result.axis)
                ),
                ("sans-serif", 22),
            )
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(64)
            .build_cartesian_2d(0.0..max_tokens, 0.0..100.0)?;
        chart
            .configure_mesh()
            .x_desc("context tokens per run (the cost)")
            .y_desc("steps completed (%), 95% interval")
            .x_label_formatter(&|x| format::tokens(*x))
            .light_line_style(WHITE)
            .draw()?;

        let centres: Vec<(f64, f64)> = points.iter().map(|(p, _)| *p).collect();
        let ordered = axis.as_ref().is_some_and(Axis::is_ordered);
        draw_with_todo(&mut chart, &points, &result.axis, ordered)?;
        let pixels: Vec<(i32, i32)> = centres.iter().map(|&p| chart.backend_coord(&p)).collect();
        draw_names(&root, &labels, &pixels)?;
        draw_pick(&mut chart, result, axis.as_ref(), &centres)?;
        draw_baseline(&mut chart, base, base_ci)?;

        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
    }
    Ok(())
}

/// The chart the series are drawn on: tokens by completion (%).
type Chart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// What drawing on the chart can fail with.
type Drawn = Result<(), DrawingAreaErrorKind<std::io::Error>>;

/// The values with the todo tool: each a dot with its error bar, joined
/// by a line (in the legend) when the axis is `ordered`, else dots only
/// (in the legend as a dot).
fn draw_with_todo(
    chart: &mut Chart<'_, '_>,
    points: &[((f64, f64), [f64; 2])],
    axis: &str,
    ordered: bool,
) -> Drawn {
    let centres: Vec<(f64, f64)> = points.iter().map(|(p, _)| *p).collect();
    let name = format!("with todo tool, by {}", axis_title(axis));
    if ordered {
        chart
            .draw_series(LineSeries::new(
                centres.clone(),
                TODO_COLOUR.stroke_width(2),
            ))?
            .label(name)
            .legend(|(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], TODO_COLOUR.stroke_width(2))
            });
        chart.draw_series(
            centres
                .iter()
                .map(|&p| Circle::new(p, 5, TODO_COLOUR.filled())),
        )?;
    } else {
        chart
            .draw_series(
                centres
                    .iter()
                    .map(|&p| Circle::new(p, 5, TODO_COLOUR.filled())),
            )?
            .label(name)
            .legend(|(x, y)| Circle::new((x + 10, y), 5, TODO_COLOUR.filled()));
    }
    chart.draw_series(points.iter().map(|((x, y), [lo, hi])| {
        ErrorBar::new_vertical(*x, *lo, *y, *hi, TODO_COLOUR.stroke_width(2), 10)
    }))?;
    Ok(())
}

/// How far above its point a name sits, and how far right (pixels).
const LABEL_RISE: i32 = 27;
const LABEL_RIGHT: i32 = 9;
/// A name's box: its height, and the width of a character (15 px font).
const LABEL_HEIGHT: i32 = 17;
const LABEL_CHAR: i32 = 9;

/// A box on the chart, in pixels: left, top, width, height.
type Box4 = (i32, i32, i32, i32);

/// A name placed: the name, where it goes and its point (pixels).
type Placed<'l> = (&'l String, (i32, i32), (i32, i32));

fn apart(a: Box4, b: Box4) -> bool {
    a.0 + a.2 <= b.0 || b.0 + b.2 <= a.0 || a.1 + a.3 <= b.1 || b.1 + b.3 <= a.1
}

/// Where each point's name goes (pixels): up and to the right of its
/// point (to the left where it would leave the chart), or, where that box
/// would overlap a name already placed or a point's marker, moved down
/// until it overlaps none. Names are placed from the top point down, so
/// the result does not depend on the order given. Returns (name, where,
/// its point).
fn place_labels<'l>(labels: &'l [String], points: &[(i32, i32)]) -> Vec<Placed<'l>> {
    const MARKER: i32 = 10;
    let markers: Vec<Box4> = points
        .iter()
        .map(|&(x, y)| (x - MARKER, y - MARKER, 2 * MARKER, 2 * MARKER))
        .collect();
    let mut order: Vec<(&'l String, (i32, i32))> =
        labels.iter().zip(points.iter().copied()).collect();
    order.sort_by_key(|&(_, (x, y))| (y, x));
    let mut placed: Vec<Placed<'l>> = Vec::new();
    let mut taken: Vec<Box4> = Vec::new();
    for (label, point) in order {
        let width = LABEL_CHAR * label.chars().count() as i32;
        let x = if point.0 + LABEL_RIGHT + width > WIDTH as i32 - 8 {
            point.0 - LABEL_RIGHT - width
        } else {
            point.0 + LABEL_RIGHT
        };
        let mut at = (x, point.1 - LABEL_RISE);
        let free = |at: (i32, i32), taken: &[Box4]| {
            let mine = (at.0, at.1, width, LABEL_HEIGHT);
            taken
                .iter()
                .chain(&markers)
                .all(|other| apart(mine, *other))
        };
        // Bounded: each step passes a name or a marker, of which there are
        // finitely many.
        while !free(at, &taken) {
            at.1 += 4;
        }
        taken.push((at.0, at.1, width, LABEL_HEIGHT));
        placed.push((label, at, point));
    }
    placed
}

/// The pick: a ring round its point, named in the legend.
fn draw_pick(
    chart: &mut Chart<'_, '_>,
    result: &SweepResult,
    axis: Option<&Axis>,
    centres: &[(f64, f64)],
) -> Drawn {
    let pick = result.best.as_ref().and_then(|best| {
        result
            .with_todo
            .iter()
            .position(|c| axis.and_then(|a| c.settings.get(a)) == Some(best))
            .map(|i| (i, best))
    });
    if let Some((i, best)) = pick
        && let Some(&point) = centres.get(i)
    {
        chart
            .draw_series(std::iter::once(Circle::new(
                point,
                11,
                PICK_COLOUR.stroke_width(3),
            )))?
            .label(format!("pick: {best}"))
            .legend(|(x, y)| Circle::new((x + 10, y), 6, PICK_COLOUR.stroke_width(3)));
    }
    Ok(())
}

/// Each point's name where [`place_labels`] puts it, with a thin line to
/// its point when it was moved.
fn draw_names(
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    labels: &[String],
    pixels: &[(i32, i32)],
) -> Drawn {
    for (label, at, point) in place_labels(labels, pixels) {
        root.draw(&Text::new(
            label.clone(),
            at,
            ("sans-serif", 15).into_font(),
        ))?;
        if at.1 != point.1 - LABEL_RISE {
            root.draw(&PathElement::new(
                vec![(point.0 + 4, point.1 - 3), (at.0 - 1, at.1 + 7)],
                TODO_COLOUR.mix(0.5).stroke_width(1),
            ))?;
        }
    }
    Ok(())
}

/// The baseline without the todo tool: a point of its own with its error
/// bar, its figures in the legend.
fn draw_baseline(chart: &mut Chart<'_, '_>, base: (f64, f64), base_ci: [f64; 2]) -> Drawn {
    chart
        .draw_series(std::iter::once(Circle::new(
            base,
            6,
            BASELINE_COLOUR.filled(),
        )))?
        .label(format!(
            "without todo tool: {:.1}% [{:.1}, {:.1}] at {} tokens",
            base.1,
            base_ci[0],
            base_ci[1],
            format::tokens(base.0)
        ))
        .legend(|(x, y)| Circle::new((x + 10, y), 5, BASELINE_COLOUR.filled()));
    chart.draw_series(std::iter::once(ErrorBar::new_vertical(
        base.0,
        base_ci[0],
        base.1,
        base_ci[1],
        BASELINE_COLOUR.stroke_width(2),
        10,
    )))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_close_points_never_overlap() {
        let labels: Vec<String> = ["8", "off", "5", "3"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        // nag 8 and nag off one pixel apart, as in the price-of-planning sweep.
        let points = [(400, 300), (401, 301), (500, 200), (700, 100)];
        let placed = place_labels(&labels, &points);
        assert_eq!(placed.len(), 4);
        let boxed =
            |(l, at, _): &Placed<'_>| (at.0, at.1, LABEL_CHAR * l.len() as i32, LABEL_HEIGHT);
        for (i, a) in placed.iter().enumerate() {
            for b in &placed[i + 1..] {
                assert!(apart(boxed(a), boxed(b)), "{a:?} and {b:?}");
            }
            for &(x, y) in &points {
                assert!(
                    apart(boxed(a), (x - 5, y - 5, 10, 10)),
                    "{a:?} on the point {x},{y}"
                );
            }
        }
        // A name with nothing near stays where it belongs.
        let three = placed.iter().find(|(l, _, _)| *l == "3").unwrap();
        assert_eq!(three.1, (700 + LABEL_RIGHT, 100 - LABEL_RISE));
        // At the right edge a name goes to the left of its point.
        let long = ["claude-code-tasks".to_string()];
        let edge = place_labels(&long, &[(WIDTH as i32 - 20, 100)]);
        assert!(edge[0].1.0 + LABEL_CHAR * 17 <= WIDTH as i32 - 20);
    }
}
