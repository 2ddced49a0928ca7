//! `agent-eval history FILE --svg OUT`: each cell's completion over the
//! recorded runs, with its 95% interval as an error bar. The x axis is the
//! recorded whole runs in order (oldest left), the y axis completion (%);
//! one coloured line per (scenario, cell), named in the legend. The
//! figures come from the results history ([`crate::results::history`]).

use plotters::prelude::*;

const WIDTH: u32 = 1000;
const HEIGHT: u32 = 560;

/// One cell's completion over the runs: (run position, value, interval),
/// all in 0..1.
#[derive(Debug, Clone, PartialEq)]
pub struct TrendLine {
    pub label: String,
    pub points: Vec<(usize, f64, Option<[f64; 2]>)>,
}

/// Renders the trend chart of `lines` over `runs` recorded runs as SVG.
pub fn render(title: &str, runs: usize, lines: &[TrendLine]) -> Result<String, String> {
    let mut svg = String::new();
    draw(title, runs, lines, &mut svg).map_err(|e| format!("cannot draw the chart: {e}"))?;
    // Names come from scenario files: controls would make invalid XML.
    Ok(super::escape::xml_chars(&svg).into_owned())
}

fn draw<'a>(
    title: &str,
    runs: usize,
    lines: &[TrendLine],
    svg: &'a mut String,
) -> Result<(), Box<dyn std::error::Error + 'a>> {
    let root = SVGBackend::with_string(svg, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let last = runs.max(2) as f64;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(0.5..last + 0.5, 0.0..100.0)?;
    chart
        .configure_mesh()
        .x_desc("recorded run (oldest left)")
        .y_desc("completion (%), 95% interval")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .light_line_style(WHITE)
        .draw()?;
    for (index, line) in lines.iter().enumerate() {
        let colour = Palette99::pick(index).to_rgba();
        let centres: Vec<(f64, f64)> = line
            .points
            .iter()
            .map(|&(x, v, _)| (x as f64 + 1.0, v * 100.0))
            .collect();
        chart
            .draw_series(LineSeries::new(centres.clone(), colour.stroke_width(2)))?
            .label(line.label.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
            });
        chart.draw_series(centres.iter().map(|&p| Circle::new(p, 4, colour.filled())))?;
        chart.draw_series(line.points.iter().filter_map(|&(x, v, ci)| {
            let [lo, hi] = ci?;
            Some(ErrorBar::new_vertical(
                x as f64 + 1.0,
                lo * 100.0,
                v * 100.0,
                hi * 100.0,
                colour.stroke_width(1),
                8,
            ))
        }))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerLeft)
        .draw()?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_line_is_named_and_drawn() {
        let svg = render(
            "docs_fixes",
            2,
            &[TrendLine {
                label: "docs_fixes todo=true".into(),
                points: vec![(0, 0.9, Some([0.8, 0.95])), (1, 0.5, Some([0.4, 0.6]))],
            }],
        )
        .unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("docs_fixes todo=true"));
        assert!(svg.contains("<polyline") || svg.contains("<path"));
    }
}
