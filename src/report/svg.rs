//! `sweep --svg FILE`: completion against its price in context, one point
//! per value of the swept axis (nag threshold by default).
//!
//! The x axis is the mean context tokens per run (what the value costs,
//! the sweep's cost), the y axis completion (%). Each value with the todo
//! tool is a point with its 95% interval as an error bar, named beside
//! it, the points joined in the order given; the baseline without the
//! todo tool is a point of its own (it pays no planning tokens). The
//! recommended value (the pick) is ringed in green and named in the
//! legend. Up and to the left is better: more completion for fewer tokens.

use plotters::prelude::*;

use crate::metric::{COMPLETION_RATE, MEAN_CONTEXT_TOKENS};
use crate::results::CellSummary;
use crate::results::pick::SweepResult;

const WIDTH: u32 = 900;
const HEIGHT: u32 = 540;
const TODO_COLOUR: RGBColor = RGBColor(31, 119, 180);
const BASELINE_COLOUR: RGBColor = RGBColor(214, 39, 40);
const PICK_COLOUR: RGBColor = RGBColor(44, 160, 44);

/// Renders the sweep chart as SVG text.
pub fn render(result: &SweepResult) -> Result<String, String> {
    let mut svg = String::new();
    let drawn = draw(result, &mut svg).map_err(|e| format!("cannot draw the chart: {e}"));
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
            .x_label_formatter(&|x| format!("{x:.0}"))
            .light_line_style(WHITE)
            .draw()?;

        let centres: Vec<(f64, f64)> = points.iter().map(|(p, _)| *p).collect();
        draw_with_todo(&mut chart, &points, &labels, &result.axis)?;
        // The pick: a ring round its point, named in the legend.
        let pick = result.best.as_ref().and_then(|best| {
            result
                .with_todo
                .iter()
                .position(|c| axis.as_ref().and_then(|a| c.settings.get(a)) == Some(best))
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

/// The values with the todo tool: joined by a line (in the legend),
/// each a dot with its error bar, named beside it.
fn draw_with_todo(
    chart: &mut Chart<'_, '_>,
    points: &[((f64, f64), [f64; 2])],
    labels: &[String],
    axis: &str,
) -> Drawn {
    let centres: Vec<(f64, f64)> = points.iter().map(|(p, _)| *p).collect();
    chart
        .draw_series(LineSeries::new(
            centres.clone(),
            TODO_COLOUR.stroke_width(2),
        ))?
        .label(format!("with todo tool, by {}", axis_title(axis)))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], TODO_COLOUR.stroke_width(2)));
    chart.draw_series(
        centres
            .iter()
            .map(|&p| Circle::new(p, 5, TODO_COLOUR.filled())),
    )?;
    chart.draw_series(points.iter().map(|((x, y), [lo, hi])| {
        ErrorBar::new_vertical(*x, *lo, *y, *hi, TODO_COLOUR.stroke_width(2), 10)
    }))?;
    // Each point named beside it (up and to the right, clear of its
    // marker and error bar).
    chart.draw_series(centres.iter().zip(labels).map(|(&p, label)| {
        EmptyElement::at(p) + Text::new(label.clone(), (9, -20), ("sans-serif", 15).into_font())
    }))?;
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
            "without todo tool: {:.1}% [{:.1}, {:.1}] at {:.0} tokens",
            base.1, base_ci[0], base_ci[1], base.0
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
