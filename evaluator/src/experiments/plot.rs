//! The training figure (NashConv or any logged column): per variant and
//! measure, the mean over seeds as a line and its band shaded (the seeds'
//! min–max, or one seed's logged 95% interval),
//! drawn with plotters as SVG and rasterised with resvg for PNG (with a
//! bundled font, so text renders on any machine).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

use super::group::Variant;
use super::stats::{band, Axis, Band, BandEdges, Measure};
use super::ExperimentError;

/// The font PNG text is drawn with (DejaVu Sans, see `assets/`).
const FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
/// Figure size in pixels.
const SIZE: (u32, u32) = (1200, 750);
/// Line colours, one per variant, colour-blind safe (Okabe–Ito).
const COLOURS: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
];
/// The most decades a log axis spans below its largest value, so that a
/// residue near zero does not crowd it with ticks.
const LOG_DECADES: i32 = 8;
/// The title's font size in pixels.
const TITLE_SIZE: u32 = 26;
/// Characters of a title line, so that a long game spec wraps instead of
/// running off: the figure's width, less the margins, over 0.64 em a
/// character. That is no bound on DejaVu Sans's wide characters (`=` is
/// 0.84 em, `m` 0.97) but a spec's mean, with its narrow `,` `_` `l` `t`
/// and spaces: the hold'em spec's lines come to about 1,010 of 1,160 px.
const TITLE_CHARS: usize = ((SIZE.0 - 40) as f64 / (0.64 * TITLE_SIZE as f64)) as usize;
// A line holds a hold'em spec's longest parameters with room to spare.
const _: () = assert!(TITLE_CHARS >= 60, "title lines too short for a game spec");

/// What to draw.
#[derive(Clone, Debug)]
pub struct PlotSpec {
    /// The figure's title.
    pub title: String,
    /// What the curves show: one line per variant and measure.
    pub measures: Vec<Measure>,
    /// Steps or wall time.
    pub axis: Axis,
    /// Logarithmic vertical axis.
    pub log_y: bool,
}

/// The output format, from the file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `.png`.
    Png,
    /// `.svg`.
    Svg,
}

impl Format {
    /// The format `path` asks for, or an error naming the path.
    pub fn of(path: &Path) -> Result<Format, ExperimentError> {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("png") => Ok(Format::Png),
            Some(e) if e.eq_ignore_ascii_case("svg") => Ok(Format::Svg),
            _ => Err(ExperimentError::Draw {
                path: path.to_path_buf(),
                message: "the file must end in .png or .svg".into(),
            }),
        }
    }
}

/// Draws the figure and writes it to `out` (PNG or SVG by extension).
pub fn plot(variants: &[Variant], spec: &PlotSpec, out: &Path) -> Result<(), ExperimentError> {
    let format = Format::of(out)?;
    let draw_error = |message: String| ExperimentError::Draw {
        path: out.to_path_buf(),
        message,
    };
    let series = series(variants, spec);
    let svg = render_svg(&series, spec).map_err(draw_error)?;
    let bytes = match format {
        Format::Svg => svg.into_bytes(),
        Format::Png => rasterise(&svg).map_err(draw_error)?,
    };
    rnad_run::files::write_atomically(out, &bytes).map_err(|source| ExperimentError::Io {
        path: PathBuf::from(out),
        source,
    })
}

/// One line of the figure with its band.
struct Series {
    /// The legend entry.
    label: String,
    band: Band,
}

/// A line per variant and measure, the measure named only where there are
/// several.
fn series(variants: &[Variant], spec: &PlotSpec) -> Vec<Series> {
    let mut series = Vec::new();
    for variant in variants {
        for measure in &spec.measures {
            let name = if spec.measures.len() == 1 {
                variant.label.clone()
            } else {
                format!("{}, {}", variant.label, measure.name())
            };
            let seeds = variant.runs.len();
            let band = band(&variant.runs, measure, spec.axis);
            let label = match (seeds, band.edges) {
                (1, BandEdges::Interval95) => format!("{name} (1 seed, 95% interval)"),
                (1, BandEdges::Seeds) => format!("{name} (1 seed)"),
                _ => format!("{name} (mean and min–max of {seeds} seeds)"),
            };
            series.push(Series { label, band });
        }
    }
    series
}

/// The vertical axis's title: the measure's, or "NashConv" over several
/// policy kinds (a logged column is only ever drawn alone).
fn y_title(measures: &[Measure]) -> String {
    match measures {
        [one] => one.title(),
        _ => "NashConv".into(),
    }
}

/// The figure as an SVG document.
fn render_svg(series: &[Series], spec: &PlotSpec) -> Result<String, String> {
    let bands = || series.iter().map(|s| &s.band);
    let x_max = bands()
        .flat_map(|b| b.x.iter().copied())
        .fold(0.0, f64::max)
        .max(1.0);
    let y_low = bands()
        .flat_map(|b| b.min.iter().copied())
        .fold(f64::INFINITY, f64::min);
    let y_high = bands()
        .flat_map(|b| b.max.iter().copied())
        .fold(f64::NEG_INFINITY, f64::max);
    if !(y_low.is_finite() && y_high.is_finite()) {
        return Err("no evaluations to draw".into());
    }
    let log_axis = if spec.log_y {
        Some(log_range(series)?)
    } else {
        None
    };
    // On a log axis, what lies below its bottom (at or below zero, or
    // more than LOG_DECADES under the top) is drawn on the bottom.
    let floor = |v: f64| match log_axis {
        Some((low, _)) => v.max(low),
        None => v,
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let body = draw_title(&root, &spec.title)?;
        let chart = Chart {
            series,
            spec,
            floor: &floor,
        };
        if let Some((low, high)) = log_axis {
            let ticks = log_ticks(low, high);
            chart.draw(
                &body,
                0.0..x_max,
                (low..high).log_scale().with_key_points(ticks),
            )?;
        } else {
            // NashConv starts the axis at zero; a column such as a loss
            // may go below it.
            let low = y_low.min(0.0);
            let high = y_high.max(0.0);
            let margin = ((high - low) * 0.05).max(1e-12);
            let low = if low < 0.0 { low - margin } else { low };
            chart.draw(&body, 0.0..x_max, low..high + margin)?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// A log axis's range: from the smallest positive value drawn (a line or
/// a band's edge) to the largest, a factor of 1.5 beyond each, but at
/// most [`LOG_DECADES`] decades deep. Values at or below zero (an exact
/// NashConv of 0, an interval reaching below zero) and values deeper than
/// that (a rounding residue of 1e-17) do not stretch it: they lie on its
/// bottom.
fn log_range(series: &[Series]) -> Result<(f64, f64), String> {
    let values = || {
        series.iter().flat_map(|s| {
            let band = &s.band;
            band.min.iter().chain(&band.mean).chain(&band.max).copied()
        })
    };
    let low = values().filter(|&v| v > 0.0).fold(f64::INFINITY, f64::min);
    let high = values().fold(f64::NEG_INFINITY, f64::max);
    if !low.is_finite() {
        return Err("a log axis shows positive values, and the measures have none".into());
    }
    let low = low.max(high / 10f64.powi(LOG_DECADES));
    Ok((low / 1.5, high * 1.5))
}

/// The parts of a figure, drawn on either kind of vertical axis.
struct Chart<'a> {
    series: &'a [Series],
    spec: &'a PlotSpec,
    floor: &'a dyn Fn(f64) -> f64,
}

impl Chart<'_> {
    fn draw<Y>(
        &self,
        root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
        x: std::ops::Range<f64>,
        y: Y,
    ) -> Result<(), String>
    where
        Y: AsRangedCoord<Value = f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let mut chart = ChartBuilder::on(root)
            .margin(20)
            .x_label_area_size(55)
            .y_label_area_size(80)
            .build_cartesian_2d(x, y)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc(self.spec.axis.title())
            .y_desc(y_title(&self.spec.measures))
            .axis_desc_style(("sans-serif", 20))
            .label_style(("sans-serif", 16))
            .y_labels(12)
            .x_label_formatter(&|v| axis_label(*v))
            .y_label_formatter(&|v| axis_label(*v))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(|e| e.to_string())?;
        for (index, Series { label, band }) in self.series.iter().enumerate() {
            let colour = COLOURS[index % COLOURS.len()];
            let mut outline: Vec<(f64, f64)> = band
                .x
                .iter()
                .zip(&band.max)
                .map(|(&x, &y)| (x, (self.floor)(y)))
                .collect();
            outline.extend(
                band.x
                    .iter()
                    .zip(&band.min)
                    .rev()
                    .map(|(&x, &y)| (x, (self.floor)(y))),
            );
            chart
                .draw_series(std::iter::once(Polygon::new(outline, colour.mix(0.18))))
                .map_err(|e| e.to_string())?;
            let line = band
                .x
                .iter()
                .zip(&band.mean)
                .map(|(&x, &y)| (x, (self.floor)(y)));
            chart
                .draw_series(LineSeries::new(line, colour.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(label)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], colour.stroke_width(3))
                });
        }
        draw_legend(&mut chart)
    }
}

/// One line of an interval figure: points with a 95% interval each.
#[derive(Clone, Debug)]
pub struct IntervalSeries {
    /// The legend entry.
    pub label: String,
    /// (x, mean, half-width) per point, x ascending.
    pub points: Vec<(f64, f64, f64)>,
}

/// The titles of an interval figure.
#[derive(Clone, Debug)]
pub struct IntervalTitles {
    /// The figure's title.
    pub title: String,
    /// The x axis (drawn on a log scale).
    pub x: String,
    /// The y axis.
    pub y: String,
}

/// Draws lines through each series' means with the intervals as error
/// bars, x on a log scale and a dashed line at y = 0, and writes the figure
/// to `out` (PNG or SVG by extension).
pub fn plot_intervals(
    series: &[IntervalSeries],
    titles: &IntervalTitles,
    out: &Path,
) -> Result<(), ExperimentError> {
    let format = Format::of(out)?;
    let draw_error = |message: String| ExperimentError::Draw {
        path: out.to_path_buf(),
        message,
    };
    let svg = render_intervals(series, titles).map_err(draw_error)?;
    let bytes = match format {
        Format::Svg => svg.into_bytes(),
        Format::Png => rasterise(&svg).map_err(draw_error)?,
    };
    rnad_run::files::write_atomically(out, &bytes).map_err(|source| ExperimentError::Io {
        path: PathBuf::from(out),
        source,
    })
}

fn render_intervals(series: &[IntervalSeries], titles: &IntervalTitles) -> Result<String, String> {
    let points = || series.iter().flat_map(|s| s.points.iter().copied());
    let (x_low, x_high) = points().fold((f64::INFINITY, 0.0f64), |(lo, hi), (x, _, _)| {
        (lo.min(x), hi.max(x))
    });
    let (y_low, y_high) = points().fold((0.0f64, 0.0f64), |(lo, hi), (_, y, w)| {
        (lo.min(y - w), hi.max(y + w))
    });
    if !(x_low.is_finite() && x_low > 0.0) {
        return Err("no points with x > 0 to draw".into());
    }
    let pad = 0.05 * (y_high - y_low).max(1e-9);
    let x_range = (x_low / 1.3..x_high * 1.3).log_scale();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let body = draw_title(&root, &titles.title)?;
        let mut chart = ChartBuilder::on(&body)
            .margin(20)
            .x_label_area_size(55)
            .y_label_area_size(80)
            .build_cartesian_2d(x_range, y_low - pad..y_high + pad)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc(titles.x.as_str())
            .y_desc(titles.y.as_str())
            .axis_desc_style(("sans-serif", 20))
            .label_style(("sans-serif", 16))
            .x_label_formatter(&|v| axis_label(*v))
            .y_label_formatter(&|v| axis_label(*v))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(DashedLineSeries::new(
                [(x_low / 1.3, 0.0), (x_high * 1.3, 0.0)],
                6,
                4,
                BLACK.mix(0.5).stroke_width(1),
            ))
            .map_err(|e| e.to_string())?;
        for (index, line) in series.iter().enumerate() {
            let colour = COLOURS[index % COLOURS.len()];
            chart
                .draw_series(line.points.iter().map(|&(x, y, w)| {
                    ErrorBar::new_vertical(x, y - w, y, y + w, colour.stroke_width(2), 8)
                }))
                .map_err(|e| e.to_string())?;
            chart
                .draw_series(LineSeries::new(
                    line.points.iter().map(|&(x, y, _)| (x, y)),
                    colour.stroke_width(2),
                ))
                .map_err(|e| e.to_string())?
                .label(line.label.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], colour.stroke_width(3))
                });
        }
        draw_legend(&mut chart)?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// Draws `title` across the top of `root`, wrapped to lines of at most
/// [`TITLE_CHARS`], and returns the area under it.
fn draw_title<'a>(
    root: &DrawingArea<SVGBackend<'a>, plotters::coord::Shift>,
    title: &str,
) -> Result<DrawingArea<SVGBackend<'a>, plotters::coord::Shift>, String> {
    let mut area = root.margin(15, 0, 0, 0);
    for line in title_lines(title, TITLE_CHARS) {
        area = area
            .titled(line, ("sans-serif", TITLE_SIZE))
            .map_err(|e| e.to_string())?;
    }
    Ok(area)
}

/// `title` as lines of at most `width` characters (`width` > 0), broken
/// after the line's last comma in its second half (a game spec's
/// parameters stay whole, `blind=100 50` included), else at its last
/// space, else within a word. A blank title has no lines.
fn title_lines(title: &str, width: usize) -> Vec<&str> {
    assert!(width > 0, "a title line holds one character at least");
    // The byte index just past the first `count` characters of `text`.
    let end_of = |text: &str, count: usize| {
        text.char_indices()
            .nth(count)
            .map_or(text.len(), |(i, _)| i)
    };
    let mut lines = Vec::new();
    let mut rest = title.trim();
    while rest.chars().count() > width {
        let limit = end_of(rest, width);
        let line = &rest[..limit];
        let cut = line
            .rfind(',')
            .filter(|&i| i >= end_of(rest, width / 2))
            .or_else(|| line.rfind(' '))
            .map_or(limit, |i| i + 1);
        lines.push(rest[..cut].trim_end());
        rest = rest[cut..].trim_start();
    }
    if !rest.is_empty() {
        lines.push(rest);
    }
    lines
}

/// The legend of every figure: upper right, on a light box.
fn draw_legend<'a, CT>(chart: &mut ChartContext<'a, SVGBackend<'a>, CT>) -> Result<(), String>
where
    CT: CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .label_font(("sans-serif", 17))
        .draw()
        .map_err(|e| e.to_string())
}

/// Ticks of a log axis: 1, 2 and 5 times each power of ten in range, or
/// every integer multiple where the range spans too little for those.
fn log_ticks(low: f64, high: f64) -> Vec<f64> {
    let decades = low.log10().floor() as i32..=high.log10().ceil() as i32;
    let within = |multiples: &[f64]| -> Vec<f64> {
        decades
            .clone()
            .flat_map(|d| multiples.iter().map(move |m| m * 10f64.powi(d)))
            .filter(|&t| t >= low && t <= high)
            .collect()
    };
    let ticks = within(&[1.0, 2.0, 5.0]);
    if ticks.len() >= 4 {
        ticks
    } else {
        within(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
    }
}

/// Axis numbers without float noise: 250000 → `250k`, 2.5 → `2.5`,
/// 2.4e9 decisions → `2.4G`.
fn axis_label(value: f64) -> String {
    let magnitude = value.abs();
    // A linear axis crossing zero puts a tick at a rounding residue
    // (2.2e-17). The log axes drawn here (NashConv, losses, rates) stay
    // far above 1e-12.
    if magnitude < 1e-12 {
        "0".to_string()
    } else if magnitude >= 1e9 {
        format!("{}G", round_label(value / 1e9))
    } else if magnitude >= 1e6 {
        format!("{}M", round_label(value / 1e6))
    } else if magnitude >= 1e3 {
        format!("{}k", round_label(value / 1e3))
    } else {
        round_label(value)
    }
}

fn round_label(value: f64) -> String {
    // Three significant digits, at least two decimals.
    let decimals = if value == 0.0 {
        0
    } else {
        (2 - value.abs().log10().floor() as i32).max(2) as usize
    };
    let text = format!("{value:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// SVG to PNG, text in the bundled font.
fn rasterise(svg: &str) -> Result<Vec<u8>, String> {
    let mut fonts = resvg::usvg::fontdb::Database::new();
    fonts.load_font_data(FONT.to_vec());
    fonts.set_sans_serif_family("DejaVu Sans");
    let options = resvg::usvg::Options {
        fontdb: Arc::new(fonts),
        ..Default::default()
    };
    let tree = resvg::usvg::Tree::from_str(svg, &options).map_err(|e| e.to_string())?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or("the figure has no area")?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_labels_are_short() {
        assert_eq!(axis_label(250_000.0), "250k");
        assert_eq!(axis_label(1_500_000.0), "1.5M");
        assert_eq!(axis_label(2_408_766_002.0), "2.41G");
        assert_eq!(axis_label(2.5), "2.5");
        assert_eq!(axis_label(0.0), "0");
        assert_eq!(axis_label(2.220446049250313e-17), "0");
        assert_eq!(axis_label(0.002), "0.002");
        assert_eq!(axis_label(0.0314), "0.0314");
    }

    #[test]
    fn log_ticks_are_round_numbers_in_range() {
        assert_eq!(log_ticks(0.03, 3.0), [0.05, 0.1, 0.2, 0.5, 1.0, 2.0]);
        let narrow = log_ticks(0.25, 1.4);
        assert_eq!(narrow.len(), 8, "{narrow:?}");
        assert!(
            (narrow[0] - 0.3).abs() < 1e-12 && narrow[7] == 1.0,
            "{narrow:?}"
        );
    }

    fn series_of(mean: &[f64], min: &[f64], max: &[f64]) -> Series {
        Series {
            label: "run".into(),
            band: Band {
                x: (0..mean.len()).map(|i| i as f64).collect(),
                mean: mean.to_vec(),
                min: min.to_vec(),
                max: max.to_vec(),
                edges: BandEdges::Interval95,
            },
        }
    }

    /// A log axis reaches down to the smallest positive value drawn, not
    /// to a fixed floor: an interval below zero lies on its bottom.
    #[test]
    fn a_log_axis_spans_the_positive_values() {
        let wide = series_of(&[4.0, 2.0], &[-3.0, 0.5], &[11.0, 3.5]);
        let zero = series_of(&[0.0, 1.0], &[0.0, 0.8], &[0.0, 1.2]);
        let (low, high) = log_range(&[wide, zero]).unwrap();
        assert!((low - 0.5 / 1.5).abs() < 1e-12, "{low}");
        assert!((high - 11.0 * 1.5).abs() < 1e-12, "{high}");
        // A rounding residue does not take the axis 17 decades down.
        let residue = series_of(&[5.0, 1e-17], &[5.0, 1e-17], &[5.0, 1e-17]);
        let (low, _) = log_range(&[residue]).unwrap();
        assert!((low - 5e-8 / 1.5).abs() < 1e-20, "{low}");
        let none = series_of(&[-1.0], &[-2.0], &[0.0]);
        let err = log_range(&[none]).unwrap_err();
        assert!(err.contains("positive"), "{err}");
    }

    /// A title wider than the figure wraps between a spec's parameters
    /// (or words), keeps every character, and a short one stays one line.
    #[test]
    fn long_titles_wrap_between_parameters() {
        let spec = "universal_poker(betting=nolimit,numPlayers=2,numRounds=4,\
                    blind=100 50,firstPlayer=2 1 1 1,numSuits=4,numRanks=13,\
                    numHoleCards=2,numBoardCards=0 3 1 1,stack=5000 5000,\
                    bettingAbstraction=fchpa): lbr.mbb_per_hand";
        let lines = title_lines(spec, TITLE_CHARS);
        assert_eq!(
            lines,
            [
                "universal_poker(betting=nolimit,numPlayers=2,numRounds=4,",
                "blind=100 50,firstPlayer=2 1 1 1,numSuits=4,numRanks=13,",
                "numHoleCards=2,numBoardCards=0 3 1 1,stack=5000 5000,",
                "bettingAbstraction=fchpa): lbr.mbb_per_hand",
            ]
        );
        assert_eq!(lines.concat().replace(' ', ""), spec.replace(' ', ""));
        assert_eq!(
            title_lines("kuhn_poker: NashConv", TITLE_CHARS),
            ["kuhn_poker: NashConv"]
        );
        assert!(title_lines("  ", TITLE_CHARS).is_empty());
        // Without a comma, at the last space that fits.
        assert_eq!(
            title_lines("leduc_poker: NashConv of the target policy", 20),
            ["leduc_poker:", "NashConv of the", "target policy"]
        );
        // A comma early in the line would leave it short: the space wins.
        assert_eq!(
            title_lines("kuhn, NashConv of the target policy", 20),
            ["kuhn, NashConv of", "the target policy"]
        );
        // A word longer than a line is cut inside it, a character at a time
        // counted (not bytes).
        assert_eq!(title_lines("ééééé", 2), ["éé", "éé", "é"]);
    }

    #[test]
    fn format_follows_the_extension() {
        assert_eq!(Format::of(Path::new("a/b.PNG")).unwrap(), Format::Png);
        assert_eq!(Format::of(Path::new("b.svg")).unwrap(), Format::Svg);
        let err = Format::of(Path::new("b.pdf")).unwrap_err().to_string();
        assert!(
            err.contains("b.pdf") && err.contains(".png or .svg"),
            "{err}"
        );
    }
}
