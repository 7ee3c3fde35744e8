//! `--plot out.png`: delivered throughput, the latency of messages and
//! packet loss over time, one column per run (`compare` draws stock and
//! enet-rs side by side, on the same scales, so the columns can be read
//! against each other). Runs without latency figures (`--no-latency`)
//! show ENet's round-trip estimate in the middle row instead.
//!
//! The font is compiled in (the Ubuntu face `epaint_default_fonts`
//! carries), so drawing needs no system fonts.

use std::path::Path;
use std::sync::Once;

use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

use crate::report::{span, Interval, Summary};

/// Stock ENet's colour, and enet-rs's (any other library gets grey).
pub const STOCK_COLOUR: RGBColor = RGBColor(204, 68, 40);
pub const OURS_COLOUR: RGBColor = RGBColor(31, 102, 196);
const OTHER_COLOUR: RGBColor = RGBColor(90, 90, 90);
/// The guides: what was offered, what the proxy drops.
const GUIDE_COLOUR: RGBColor = RGBColor(150, 150, 150);

const FONT: &str = "sans-serif";
const COLUMN_WIDTH: u32 = 720;
const HEIGHT: u32 = 1020;
const HEADER_HEIGHT: u32 = 150;
const FOOTER_HEIGHT: u32 = 30;

/// What one row of panels shows.
struct Metric {
    title: &'static str,
    unit: &'static str,
    /// The value of an interval of a run of the given mode.
    value: fn(&Interval, &str) -> f64,
    /// The axis never ends below this, so a flat zero still has a scale.
    least_top: f64,
}

/// The three rows: throughput, round-trip time (drawn as latency when the
/// runs have it, see [`draw_latency`]), and the loss that matters for the
/// run's mode (see [`Interval::loss_shown`]).
fn metrics(mode: &str) -> [Metric; 3] {
    [
        Metric {
            title: "delivered messages per second",
            unit: "msg/s",
            value: |interval, _| interval.messages_per_s,
            least_top: 10.0,
        },
        Metric {
            title: "round-trip time (ENet's estimate)",
            unit: "ms",
            value: |interval, _| interval.rtt_ms,
            least_top: 5.0,
        },
        Metric {
            title: if mode == "reliable" {
                "packet loss (ENet's counters: commands resent per datagram)"
            } else {
                "messages lost on the way (sent, never delivered)"
            },
            unit: "%",
            value: Interval::loss_shown,
            least_top: 5.0,
        },
    ]
}

fn register_fonts() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // The face is a valid TrueType font compiled into this program.
        let _ = register_font(FONT, FontStyle::Normal, epaint_default_fonts::UBUNTU_LIGHT);
    });
}

fn colour_of(run: &Summary) -> RGBColor {
    match run.library.as_str() {
        "stock ENet" => STOCK_COLOUR,
        "enet-rs" => OURS_COLOUR,
        _ => OTHER_COLOUR,
    }
}

/// The scenario, as two lines for the header: the traffic, and the
/// impairment.
fn scenario(run: &Summary) -> [String; 2] {
    let i = run.impairment;
    let impairment = if i.loss == 0.0 && i.duplicate == 0.0 && i.delay_ms == 0 && i.jitter_ms == 0 {
        "none".to_string()
    } else {
        format!(
            "loss {} %, duplication {} %, delay {} ms, jitter {} ms",
            i.loss * 100.0,
            i.duplicate * 100.0,
            i.delay_ms,
            i.jitter_ms
        )
    };
    [
        format!(
            "{} messages of {} B, {} msg/s offered, {} peer(s), {} channel(s), {} s",
            run.mode, run.size, run.rate, run.peers, run.channels, run.duration_s
        ),
        format!("through the impairing proxy: {impairment}"),
    ]
}

/// A run's result in one line, under its column's name.
fn outcome(run: &Summary) -> String {
    let resent = run
        .retransmissions()
        .map_or_else(String::new, |count| format!(", {count} resent"));
    let latency = &run.latency;
    let timing = match (latency.p50_ms, latency.p99_ms) {
        (Some(_), Some(_)) => {
            let stall = latency.longest_stall_ms.map_or_else(String::new, |_| {
                format!(", longest stall {}", span(latency.longest_stall_ms))
            });
            format!(
                "latency p50 {}, p99 {}{stall}",
                span(latency.p50_ms),
                span(latency.p99_ms)
            )
        }
        _ => format!("mean rtt {:.1} ms", run.mean_rtt_ms()),
    };
    format!(
        "{:.0} msg/s delivered ({:.1} % of sent), {timing}{resent}",
        run.messages_per_s(),
        run.delivered_percent(),
    )
}

/// The latency row's scale, ms (logarithmic): from the power of ten under
/// the fastest p50 to the one above the slowest message, shared by every
/// column.
fn latency_range(runs: &[Summary]) -> Option<(f64, f64)> {
    let figures = || {
        runs.iter()
            .flat_map(|run| &run.intervals)
            .map(|i| &i.latency)
    };
    let fastest = figures()
        .filter_map(|l| l.p50_ms)
        .fold(f64::INFINITY, f64::min);
    let slowest = figures().filter_map(|l| l.max_ms).fold(0.0f64, f64::max);
    if !fastest.is_finite() {
        return None;
    }
    let bottom = 10f64.powf(fastest.max(0.01).log10().floor());
    let top = 10f64.powf((slowest * 1.2).log10().ceil());
    Some((bottom, top.max(bottom * 10.0)))
}

/// The latency panel of one run: per interval, a band from p50 to p99,
/// the p50 line, and the slowest message as a dot. Intervals without a
/// delivered message leave a gap.
fn draw_latency(
    panel: &DrawingArea<BitMapBackend, plotters::coord::Shift>,
    run: &Summary,
    duration: f64,
    (bottom, top): (f64, f64),
) -> Result<(), String> {
    let failed = |error: &dyn std::fmt::Display| error.to_string();
    let colour = colour_of(run);
    let mut chart = ChartBuilder::on(panel)
        .caption(
            "message latency: p50 (line), p50 to p99 (band), slowest (dots)",
            (FONT, 17),
        )
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..duration, (bottom..top).log_scale())
        .map_err(|error| failed(&error))?;
    chart
        .configure_mesh()
        .light_line_style(RGBColor(235, 235, 235))
        .x_desc("seconds")
        .y_desc("ms (log scale)")
        .y_labels(6)
        .label_style((FONT, 13))
        .x_label_formatter(&|value| tick(*value))
        .y_label_formatter(&|value| tick(*value))
        .axis_desc_style((FONT, 14))
        .draw()
        .map_err(|error| failed(&error))?;
    let clamp = |ms: f64| ms.clamp(bottom, top);
    // Runs of consecutive intervals that have figures.
    let mut stretches: Vec<Vec<(f64, f64, f64)>> = vec![Vec::new()];
    for interval in &run.intervals {
        match (interval.latency.p50_ms, interval.latency.p99_ms) {
            (Some(p50), Some(p99)) => stretches.last_mut().expect("one stretch at least").push((
                interval.seconds,
                clamp(p50),
                clamp(p99),
            )),
            _ => stretches.push(Vec::new()),
        }
    }
    for stretch in stretches.iter().filter(|stretch| !stretch.is_empty()) {
        let band: Vec<(f64, f64)> = stretch
            .iter()
            .map(|&(x, p50, _)| (x, p50))
            .chain(stretch.iter().rev().map(|&(x, _, p99)| (x, p99)))
            .collect();
        chart
            .draw_series(std::iter::once(Polygon::new(
                band,
                colour.mix(0.25).filled(),
            )))
            .map_err(|error| failed(&error))?;
        chart
            .draw_series(LineSeries::new(
                stretch.iter().map(|&(x, p50, _)| (x, p50)),
                colour.stroke_width(3),
            ))
            .map_err(|error| failed(&error))?;
        chart
            .draw_series(
                stretch
                    .iter()
                    .map(|&(x, p50, _)| Circle::new((x, p50), 3, colour.filled())),
            )
            .map_err(|error| failed(&error))?;
    }
    chart
        .draw_series(run.intervals.iter().filter_map(|interval| {
            let max = interval.latency.max_ms?;
            Some(Circle::new(
                (interval.seconds, clamp(max)),
                2,
                colour.stroke_width(1),
            ))
        }))
        .map_err(|error| failed(&error))?;
    Ok(())
}

/// The top of a metric's axis: a little above the highest value of any
/// run, so every column shares it.
fn axis_top(runs: &[Summary], metric: &Metric, guide: Option<f64>) -> f64 {
    let highest = runs
        .iter()
        .flat_map(|run| {
            run.intervals
                .iter()
                .map(|interval| (metric.value)(interval, &run.mode))
        })
        .chain(guide)
        .fold(0.0f64, f64::max);
    (highest * 1.15).max(metric.least_top)
}

/// A dashed level drawn across a panel (offered rate, configured loss).
fn guide(metric_index: usize, run: &Summary) -> Option<f64> {
    match metric_index {
        0 => Some(f64::from(run.rate)),
        2 if run.impairment.loss > 0.0 => Some(run.impairment.loss * 100.0),
        _ => None,
    }
}

/// An axis label: whole numbers without decimals.
fn tick(value: f64) -> String {
    if value.fract() == 0.0 || value.abs() >= 100.0 {
        format!("{value:.0}")
    } else if value.abs() >= 1.0 {
        format!("{value:.1}")
    } else {
        // Small values of a logarithmic axis: 0.5, 0.05, 0.002.
        let text = format!("{value:.3}");
        text.trim_end_matches('0').to_string()
    }
}

/// Draws `runs` side by side into the PNG at `path`.
pub fn draw(path: &Path, runs: &[Summary]) -> Result<(), String> {
    let failed = |error: &dyn std::fmt::Display| format!("cannot draw {}: {error}", path.display());
    let Some(first) = runs.first() else {
        return Err(failed(&"no runs to draw"));
    };
    register_fonts();
    let columns = runs.len();
    let width = COLUMN_WIDTH * columns as u32;
    let mut pixels = vec![0u8; width as usize * HEIGHT as usize * 3];
    // The drawing areas borrow the pixels until the block ends.
    {
        let root = BitMapBackend::with_buffer(&mut pixels, (width, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(|error| failed(&error))?;
        let (header, rest) = root.split_vertically(HEADER_HEIGHT);
        let (body, footer) = rest.split_vertically(HEIGHT - HEADER_HEIGHT - FOOTER_HEIGHT);
        let title = if columns == 2 {
            "enetperf compare: the same run on each library"
        } else {
            "enetperf"
        };
        header
            .draw_text(title, &(FONT, 28).into_font().color(&BLACK), (16, 10))
            .map_err(|error| failed(&error))?;
        for (line, y) in scenario(first).iter().zip([44, 66]) {
            header
                .draw_text(line, &(FONT, 17).into_font().color(&BLACK), (16, y))
                .map_err(|error| failed(&error))?;
        }
        for (column, run) in header.split_evenly((1, columns)).iter().zip(runs.iter()) {
            let colour = colour_of(run);
            column
                .draw_text(
                    &run.library_label(),
                    &(FONT, 22).into_font().color(&colour),
                    (16, 96),
                )
                .map_err(|error| failed(&error))?;
            column
                .draw_text(
                    &outcome(run),
                    &(FONT, 15).into_font().color(&BLACK),
                    (16, 124),
                )
                .map_err(|error| failed(&error))?;
        }
        let duration = runs.iter().map(|run| run.duration_s).fold(1.0f64, f64::max);
        let metrics = metrics(&first.mode);
        let panels = body.split_evenly((metrics.len(), columns));
        let latency = latency_range(runs);
        for (row, metric) in metrics.iter().enumerate() {
            if let (1, Some(range)) = (row, latency) {
                for (column, run) in runs.iter().enumerate() {
                    draw_latency(&panels[row * columns + column], run, duration, range)
                        .map_err(|error| failed(&error))?;
                }
                continue;
            }
            let guide_top = runs
                .iter()
                .filter_map(|run| guide(row, run))
                .fold(None, |top: Option<f64>, level| {
                    Some(top.map_or(level, |t| t.max(level)))
                });
            let top = axis_top(runs, metric, guide_top);
            for (column, run) in runs.iter().enumerate() {
                let panel = &panels[row * columns + column];
                let colour = colour_of(run);
                let mut chart = ChartBuilder::on(panel)
                    .caption(metric.title, (FONT, 17))
                    .margin(12)
                    .x_label_area_size(34)
                    .y_label_area_size(70)
                    .build_cartesian_2d(0.0..duration, 0.0..top)
                    .map_err(|error| failed(&error))?;
                chart
                    .configure_mesh()
                    .light_line_style(RGBColor(235, 235, 235))
                    .x_desc("seconds")
                    .y_desc(metric.unit)
                    .label_style((FONT, 13))
                    .x_label_formatter(&|value| tick(*value))
                    .y_label_formatter(&|value| tick(*value))
                    .axis_desc_style((FONT, 14))
                    .draw()
                    .map_err(|error| failed(&error))?;
                if let Some(level) = guide(row, run) {
                    chart
                        .draw_series(DashedLineSeries::new(
                            [(0.0, level), (duration, level)],
                            8,
                            6,
                            GUIDE_COLOUR.stroke_width(2),
                        ))
                        .map_err(|error| failed(&error))?;
                }
                let points: Vec<(f64, f64)> = run
                    .intervals
                    .iter()
                    .map(|interval| (interval.seconds, (metric.value)(interval, &run.mode)))
                    .collect();
                chart
                    .draw_series(LineSeries::new(
                        points.iter().copied(),
                        colour.stroke_width(3),
                    ))
                    .map_err(|error| failed(&error))?;
                chart
                    .draw_series(
                        points
                            .iter()
                            .map(|&point| Circle::new(point, 3, colour.filled())),
                    )
                    .map_err(|error| failed(&error))?;
            }
        }
        let legend = if first.mode == "reliable" {
            "dashed grey: the rate offered (top); the loss the proxy adds each way (bottom). A command \
         is resent when its datagram or its acknowledgement is lost, so ENet counts about twice that."
        } else {
            "dashed grey: the rate offered (top); the loss the proxy adds each way (bottom)."
        };
        footer
            .draw_text(
                legend,
                &(FONT, 14).into_font().color(&OTHER_COLOUR),
                (16, 6),
            )
            .map_err(|error| failed(&error))?;
        root.present().map_err(|error| failed(&error))?;
    }
    write_png(path, width, HEIGHT, &pixels).map_err(|error| failed(&error))
}

/// Writes RGB `pixels` as a PNG, compressed hard: plots are mostly
/// white and grid, and a small file is easy to attach to a bug report.
fn write_png(
    path: &Path,
    width: u32,
    height: u32,
    pixels: &[u8],
) -> Result<(), png::EncodingError> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Best);
    encoder.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(pixels)?;
    writer.finish()
}
