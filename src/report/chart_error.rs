//! The one way drawing a chart fails (the sweep chart, [`super::svg`], and
//! the history's trend chart, [`super::trend_svg`]): the plotting library
//! reported an error, kept as its text. Typed so that the library returns
//! no bare strings; the binary shows it as `cannot draw the chart: …`.

/// Drawing a chart failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot draw the chart: {0}")]
pub struct ChartError(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_is_the_one_the_binary_always_showed() {
        let e = ChartError("the backend refused".into());
        assert_eq!(e.to_string(), "cannot draw the chart: the backend refused");
    }
}
