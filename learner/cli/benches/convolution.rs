//! The networks' convolutions in one run, written to a file and printed:
//! for each layer of the card torso (hold'em's card planes, 32 filters)
//! and of seed 004's network, at the batch sizes they meet (an actor's
//! games, a learner's batch, one decision's actions, a range of hands),
//! milliseconds a call of candle's own CPU `conv2d` and of the layer the
//! networks use (`rnad_net::conv::Conv`) on the same tensors, for
//! inference and for a forward and backward pass, and their ratio. The
//! two outputs are checked to agree first.
//!
//! `cargo bench -p rnad-learner-cli --bench convolution -- [--seconds S] [--out FILE]`
//! (default 1 s a measurement, the workspace's `target/bench/convolution.json`).

use std::path::PathBuf;
use std::time::Instant;

use candle_core::{DType, Device, Module, Tensor, Var, D};
use candle_nn::{VarBuilder, VarMap};
use clap::Parser;
use rnad_net::conv::Conv;
use serde::Serialize;

#[derive(Parser)]
struct Args {
    /// Seconds spent on each measurement.
    #[arg(long, default_value_t = 1.0)]
    seconds: f64,
    /// Where the figures go (cargo runs benchmarks in the crate's folder:
    /// the default is the workspace's `target/bench/convolution.json`).
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/bench/convolution.json"))]
    out: PathBuf,
    /// `cargo bench` passes this to every bench target.
    #[arg(long, hide = true)]
    bench: bool,
}

/// One layer at one batch size.
struct Case {
    name: String,
    images: usize,
    inputs: usize,
    outputs: usize,
    side: (usize, usize),
    kernel: usize,
}

/// Every layer of both networks at the batch sizes it meets.
fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    // The card torso: hold'em's two card planes (hole, board) of 4 suits by
    // 13 ranks, then 32 filters, both 3 × 3.
    for (images, batch) in [
        (256, "an actor's 256 games"),
        (2048, "a learner's 2,048 rows"),
    ] {
        for (layer, inputs) in [(0, 2), (1, 32)] {
            cases.push(Case {
                name: format!("card torso conv {layer}, {batch}"),
                images,
                inputs,
                outputs: 32,
                side: (4, 13),
                kernel: 3,
            });
        }
    }
    // Seed 004's network: 33 planes of 17 × 17, two layers of 32 filters,
    // a pool to 8 × 8, two of 64, all 5 × 5; a decision's actions meet the
    // first two at least, a range's hands all four.
    let layers = [(33, 32, 17), (32, 32, 17), (32, 64, 8), (64, 64, 8)];
    for (images, batch, depth) in [
        (4, "one decision's 4 actions", 2),
        (128, "128 of a range's hands", 4),
    ] {
        for (layer, &(inputs, outputs, side)) in layers[..depth].iter().enumerate() {
            cases.push(Case {
                name: format!("seed 004 conv {layer}, {batch}"),
                images,
                inputs,
                outputs,
                side: (side, side),
                kernel: 5,
            });
        }
    }
    cases
}

/// One case's figures.
#[derive(Serialize)]
struct Figures {
    case: String,
    /// `[N, in, H, W]` and the kernel's side.
    planes: [usize; 4],
    outputs: usize,
    kernel: usize,
    /// The largest difference of the two outputs over the largest output.
    relative_difference: f32,
    candle_forward_ms: f64,
    ours_forward_ms: f64,
    forward_ratio: f64,
    candle_forward_backward_ms: f64,
    ours_forward_backward_ms: f64,
    forward_backward_ratio: f64,
}

#[derive(Serialize)]
struct Report {
    seconds_per_measurement: f64,
    threads: usize,
    cases: Vec<Figures>,
}

/// Milliseconds a call of `f`, over at least three calls and `seconds`.
fn time(seconds: f64, mut f: impl FnMut() -> candle_core::Result<()>) -> candle_core::Result<f64> {
    f()?;
    let start = Instant::now();
    let mut calls = 0;
    while calls < 3 || start.elapsed().as_secs_f64() < seconds {
        f()?;
        calls += 1;
    }
    Ok(start.elapsed().as_secs_f64() * 1e3 / calls as f64)
}

fn largest(t: &Tensor) -> candle_core::Result<f32> {
    t.abs()?.flatten_all()?.max(D::Minus1)?.to_scalar()
}

fn measure(case: Case, seconds: f64) -> candle_core::Result<Figures> {
    let (height, width) = case.side;
    let device = Device::Cpu;
    let map = VarMap::new();
    let vb = VarBuilder::from_varmap(&map, DType::F32, &device);
    let conv = Conv::build(case.inputs, case.outputs, case.kernel, vb)?;
    let (weight, bias) = {
        let data = map.data().lock().expect("the map is ours alone");
        (data["weight"].clone(), data["bias"].clone())
    };
    for var in [&weight, &bias] {
        var.set(&var.randn_like(0.0, 0.1)?)?;
    }
    let shape = (case.images, case.inputs, height, width);
    let planes = Var::randn(0f32, 1.0, shape, &device)?;
    let bias_planes = bias.reshape((case.outputs, 1, 1))?;
    let candle = |planes: &Tensor| {
        planes
            .conv2d(&weight, case.kernel / 2, 1, 1, 1)?
            .broadcast_add(&bias_planes)
    };
    let ours = |planes: &Tensor| conv.forward(planes);
    let reference = candle(&planes)?;
    let relative_difference = largest(&(ours(&planes)? - &reference)?)? / largest(&reference)?;
    let inference = planes.as_tensor().detach();
    let train = |forward: &dyn Fn(&Tensor) -> candle_core::Result<Tensor>| {
        forward(&planes)?.sqr()?.sum_all()?.backward().map(drop)
    };
    let candle_forward_ms = time(seconds, || candle(&inference).map(drop))?;
    let ours_forward_ms = time(seconds, || ours(&inference).map(drop))?;
    let candle_forward_backward_ms = time(seconds, || train(&candle))?;
    let ours_forward_backward_ms = time(seconds, || train(&ours))?;
    Ok(Figures {
        case: case.name,
        planes: [case.images, case.inputs, height, width],
        outputs: case.outputs,
        kernel: case.kernel,
        relative_difference,
        candle_forward_ms,
        ours_forward_ms,
        forward_ratio: candle_forward_ms / ours_forward_ms,
        candle_forward_backward_ms,
        ours_forward_backward_ms,
        forward_backward_ratio: candle_forward_backward_ms / ours_forward_backward_ms,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let mut measured = Vec::new();
    for case in cases() {
        let figures = measure(case, args.seconds)?;
        if figures.relative_difference > 1e-5 {
            return Err(format!(
                "{}: the two convolutions differ by {} of the output",
                figures.case, figures.relative_difference
            )
            .into());
        }
        println!(
            "{:<44} forward {:>8.2} ms candle, {:>8.2} ms ours ({:.1}×); with backward {:>8.2} / {:>8.2} ms ({:.1}×)",
            figures.case,
            figures.candle_forward_ms,
            figures.ours_forward_ms,
            figures.forward_ratio,
            figures.candle_forward_backward_ms,
            figures.ours_forward_backward_ms,
            figures.forward_backward_ratio
        );
        measured.push(figures);
    }
    let report = Report {
        seconds_per_measurement: args.seconds,
        threads: candle_core::utils::get_num_threads(),
        cases: measured,
    };
    if let Some(parent) = args.out.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&args.out, serde_json::to_string_pretty(&report)? + "\n")?;
    println!("wrote {}", args.out.display());
    Ok(())
}
