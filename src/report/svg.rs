//! `sweep --svg FILE`: completion against the swept axis (nag threshold by
//! default).
//!
//! The left axis is completion (%): the todo tool's completion per
//! threshold with its 95% interval as error bars, and the no-todo baseline
//! as a flat line. The right axis is reminders per run, the cost of
//! nagging, as a dashed line. Thresholds are evenly spaced categories in
//! the order given. The recommended value (the pick) is ringed in green
//! and named in the legend.

use plotters::prelude::*;

use crate::eval::sweep::SweepResult;
use crate::metric::{COMPLETION_RATE, MEAN_REMINDERS};

const WIDTH: u32 = 900;
const HEIGHT: u32 = 540;
const TODO_COLOUR: RGBColor = RGBColor(31, 119, 180);
const BASELINE_COLOUR: RGBColor = RGBColor(214, 39, 40);
const COST_COLOUR: RGBColor = RGBColor(120, 120, 120);
const PICK_COLOUR: RGBColor = RGBColor(44, 160, 44);

/// Renders the sweep chart as SVG text.
pub fn render(result: &SweepResult) -> Result<String, String> {
    let mut svg = String::new();
    let drawn = draw(result, &mut svg).map_err(|e| format!("cannot draw the chart: {e}"));
    drawn?;
    Ok(svg)
}

/// How the chart names the swept axis.
fn axis_title(axis: &str) -> String {
    if axis == "nag_threshold" {
        "nag threshold".into()
    } else {
        axis.into()
    }
}

fn draw<'a>(
    result: &SweepResult,
    svg: &'a mut String,
) -> Result<(), Box<dyn std::error::Error + 'a>> {
    let labels: Vec<String> = result
        .with_todo
        .iter()
        .map(|c| {
            crate::scenario::Axis::parse(&result.axis)
                .ok()
                .and_then(|a| c.settings.get(&a).map(ToString::to_string))
                .unwrap_or_else(|| "-".to_string())
        })
        .collect();
    let n = labels.len().max(1) as f64;
    let max_reminders = result
        .with_todo
        .iter()
        .map(|c| c.value(MEAN_REMINDERS))
        .fold(1.0_f64, f64::max)
        * 1.15;
    {
        let root = SVGBackend::with_string(svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!(
                    "{}: completion vs {}",
                    result.scenario,
                    axis_title(&result.axis)
                ),
                ("sans-serif", 22),
            )
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(64)
            .right_y_label_area_size(64)
            .build_cartesian_2d(-0.5..(n - 0.5), 0.0..100.0)?
            .set_secondary_coord(-0.5..(n - 0.5), 0.0..max_reminders);
        let label_of = |x: &f64| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                labels.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .x_labels(labels.len() * 2 + 1)
            .x_label_formatter(&label_of)
            .x_desc(if result.axis == "nag_threshold" {
                "nag threshold (rounds without a todo update before a reminder)".to_string()
            } else {
                result.axis.clone()
            })
            .y_desc("steps completed (%), 95% interval")
            .disable_x_mesh()
            .light_line_style(WHITE)
            .draw()?;
        chart
            .configure_secondary_axes()
            .y_desc("reminders per run (cost)")
            .draw()?;

        let points: Vec<(f64, f64)> = result
            .with_todo
            .iter()
            .enumerate()
            .map(|(i, c)| (i as f64, c.value(COMPLETION_RATE) * 100.0))
            .collect();
        chart
            .draw_series(LineSeries::new(points.clone(), TODO_COLOUR.stroke_width(3)))?
            .label("with todo tool")
            .legend(|(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], TODO_COLOUR.stroke_width(3))
            });
        chart.draw_series(
            points
                .iter()
                .map(|&p| Circle::new(p, 5, TODO_COLOUR.filled())),
        )?;
        chart.draw_series(result.with_todo.iter().enumerate().map(|(i, c)| {
            ErrorBar::new_vertical(
                i as f64,
                c.interval(COMPLETION_RATE)[0] * 100.0,
                c.value(COMPLETION_RATE) * 100.0,
                c.interval(COMPLETION_RATE)[1] * 100.0,
                TODO_COLOUR.stroke_width(2),
                12,
            )
        }))?;

        // The pick: a ring round its point, named in the legend.
        let axis = crate::scenario::Axis::parse(&result.axis).ok();
        let pick = result.best.as_ref().and_then(|best| {
            result
                .with_todo
                .iter()
                .position(|c| axis.as_ref().and_then(|a| c.settings.get(a)) == Some(best))
                .map(|i| (i, best))
        });
        if let Some((i, best)) = pick
            && let Some(&point) = points.get(i)
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

        let base = &result.without_todo;
        let base_line = vec![
            (-0.5, base.value(COMPLETION_RATE) * 100.0),
            (n - 0.5, base.value(COMPLETION_RATE) * 100.0),
        ];
        chart
            .draw_series(LineSeries::new(base_line, BASELINE_COLOUR.stroke_width(2)))?
            .label(format!(
                "without todo tool: {:.1}% [{:.1}, {:.1}]",
                base.value(COMPLETION_RATE) * 100.0,
                base.interval(COMPLETION_RATE)[0] * 100.0,
                base.interval(COMPLETION_RATE)[1] * 100.0
            ))
            .legend(|(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], BASELINE_COLOUR.stroke_width(2))
            });

        let cost: Vec<(f64, f64)> = result
            .with_todo
            .iter()
            .enumerate()
            .map(|(i, c)| (i as f64, c.value(MEAN_REMINDERS)))
            .collect();
        chart
            .draw_secondary_series(DashedLineSeries::new(
                cost.clone(),
                8,
                5,
                COST_COLOUR.stroke_width(2),
            ))?
            .label("reminders per run (right axis)")
            .legend(|(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], COST_COLOUR.stroke_width(2))
            });
        chart.draw_secondary_series(
            cost.iter()
                .map(|&p| TriangleMarker::new(p, 6, COST_COLOUR.filled())),
        )?;

        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerLeft)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
    }
    Ok(())
}
