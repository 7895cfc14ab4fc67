//! A square 2-D convolution that keeps the plane's size (stride 1, zero
//! padding of half the kernel, odd kernels), with the tensors candle-nn's
//! `conv2d` gives it (`weight` `[out, in, k, k]`, `bias` `[out]`), so that
//! checkpoints do not tell the two apart.
//!
//! On the CPU (f32) it runs as matrix products a few images at a time:
//! each output cell's input patch is laid out as a row, the patches of a
//! chunk of images filling a buffer of about 2 MB that stays in cache, and
//! the rows are multiplied by the kernel as a `[k·k·in, out]` matrix; the
//! chunks run side by side on the threads. candle's own CPU convolution
//! multiplies image by image with the kernel as the product's `out` rows,
//! which is slow on the small planes the card networks see; here each
//! product has hundreds of rows. The gradients are products of the same
//! shapes (first order only: nothing here differentiates a gradient).
//! Planes that track no gradient and are zero outside a band of rows
//! (seed 004's input) are convolved only where the band reaches.
//! `learner/cli/benches/convolution.rs` times both on the networks'
//! layers. On other devices (and dtypes) the layer is candle's `conv2d`.

use candle_core::{CpuStorage, CustomOp2, DType, Layout, Module, Result, Shape, Tensor};
use candle_nn::init::DEFAULT_KAIMING_NORMAL;
use candle_nn::{Init, VarBuilder};
use gemm::Parallelism;
use rayon::prelude::*;

/// Floats of patch rows a product takes at once: about 2 MB, so that a
/// chunk's rows are still in cache when the product reads them.
const CHUNK_FLOATS: usize = 1 << 19;

/// A size-keeping convolution of `kernel × kernel` filters.
#[derive(Clone, Debug)]
pub struct Conv {
    weight: Tensor,
    bias: Tensor,
}

impl Conv {
    /// `outputs` filters of `kernel × kernel` over `inputs` planes
    /// (`weight`, `bias` under `vb`). `kernel` is odd.
    pub fn build(inputs: usize, outputs: usize, kernel: usize, vb: VarBuilder) -> Result<Conv> {
        if kernel.is_multiple_of(2) {
            candle_core::bail!("a size-keeping convolution needs an odd kernel, not {kernel}");
        }
        // candle-nn's initialisation, for builders that initialise (the
        // project's own parameter sets are drawn elsewhere).
        let bound = 1.0 / (inputs as f64).sqrt();
        let bias = Init::Uniform {
            lo: -bound,
            up: bound,
        };
        Ok(Conv {
            weight: vb.get_with_hints(
                (outputs, inputs, kernel, kernel),
                "weight",
                DEFAULT_KAIMING_NORMAL,
            )?,
            bias: vb.get_with_hints(outputs, "bias", bias)?,
        })
    }
}

impl Module for Conv {
    /// `[N, in, H, W]` to `[N, out, H, W]`.
    fn forward(&self, planes: &Tensor) -> Result<Tensor> {
        let (outputs, _, kernel, _) = self.weight.dims4()?;
        let convolved = if planes.device().is_cpu() && planes.dtype() == DType::F32 {
            self.convolve_on_cpu(&planes.contiguous()?)?
        } else {
            planes.conv2d(&self.weight, kernel / 2, 1, 1, 1)?
        };
        convolved.broadcast_add(&self.bias.reshape((outputs, 1, 1))?)
    }
}

impl Conv {
    /// The convolution without the bias, of contiguous f32 planes on the
    /// CPU. Planes that track no gradient (a network's input; in
    /// inference, every layer's) and that are zero outside a band of rows,
    /// as seed 004's are (rows 6–9 of 17), are convolved only over the
    /// rows the kernel carries the band to; the output's other rows are
    /// zero, as their windows hold only zeros. Where a gradient must reach
    /// the planes every row is convolved: the zero rows' gradient is not
    /// zero.
    fn convolve_on_cpu(&self, planes: &Tensor) -> Result<Tensor> {
        let weight = self.weight.contiguous()?;
        let (_, _, height, _) = planes.dims4()?;
        let reached = if planes.track_op() {
            None
        } else {
            rows_reached(rows_in_use(planes)?, weight.dim(2)? / 2, height)
        };
        let Some(rows) = reached else {
            return planes.apply_op2(&weight, Convolve);
        };
        planes
            .narrow(2, rows.start, rows.len())?
            .contiguous()?
            .apply_op2(&weight, Convolve)?
            .pad_with_zeros(2, rows.start, height - rows.end)
    }
}

/// The output rows that a band of input rows (the rest zero) reaches
/// through a kernel of `half` cells either side of its centre, when they
/// are not all `height` rows; `None` when they are, or when the band is
/// empty (every row's output is then the bias alone, and the full
/// convolution keeps the kernel in the gradient's graph).
fn rows_reached(
    band: std::ops::Range<usize>,
    half: usize,
    height: usize,
) -> Option<std::ops::Range<usize>> {
    let rows = band.start.saturating_sub(half)..(band.end + half).min(height);
    (!band.is_empty() && rows != (0..height)).then_some(rows)
}

/// The rows of contiguous f32 planes `[N, C, H, W]` on the CPU that hold
/// a value other than zero in some image and plane: from the first to the
/// last of them (empty when every value is zero).
fn rows_in_use(planes: &Tensor) -> Result<std::ops::Range<usize>> {
    let (images, channels, height, width) = planes.dims4()?;
    let (storage, layout) = planes.storage_and_layout();
    let candle_core::Storage::Cpu(storage) = &*storage else {
        candle_core::bail!("the convolution's planes are not on the CPU");
    };
    let values = f32_slice(storage, layout, "planes")?;
    let used = |row: usize| {
        (0..images * channels).any(|plane| {
            values[(plane * height + row) * width..][..width]
                .iter()
                .any(|&v| v != 0.0)
        })
    };
    let Some(first) = (0..height).find(|&row| used(row)) else {
        return Ok(0..0);
    };
    let last = (first..height).rfind(|&row| used(row)).unwrap_or(first);
    Ok(first..last + 1)
}

/// The sizes of one convolution.
#[derive(Clone, Copy, Debug)]
struct Geometry {
    images: usize,
    inputs: usize,
    outputs: usize,
    height: usize,
    width: usize,
    kernel: usize,
}

impl Geometry {
    fn of(planes: &Shape, weight: &Shape) -> Result<Geometry> {
        let (images, inputs, height, width) = planes.dims4()?;
        let (outputs, weight_inputs, kernel, kernel_width) = weight.dims4()?;
        if weight_inputs != inputs || kernel != kernel_width || kernel.is_multiple_of(2) {
            candle_core::bail!(
                "convolution of planes {planes:?} by a kernel {weight:?}: the kernel must be \
                 square, odd and read every input plane"
            );
        }
        if inputs == 0 || outputs == 0 || height == 0 || width == 0 {
            candle_core::bail!(
                "convolution of planes {planes:?} by a kernel {weight:?}: planes need a cell \
                 and the kernel an input and an output"
            );
        }
        Ok(Geometry {
            images,
            inputs,
            outputs,
            height,
            width,
            kernel,
        })
    }

    fn cells(&self) -> usize {
        self.height * self.width
    }

    /// One patch row's length: the kernel's cells times the input planes,
    /// row by row of the kernel, then column, then plane.
    fn patch(&self) -> usize {
        self.kernel * self.kernel * self.inputs
    }

    /// Images whose patch rows fill a chunk (one at least).
    fn images_per_chunk(&self) -> usize {
        (CHUNK_FLOATS / (self.cells() * self.patch())).max(1)
    }

    /// How each product runs: on every thread when there are fewer
    /// chunks than threads, else on one (the chunks run side by side).
    fn parallelism(&self) -> Parallelism {
        let threads = candle_core::utils::get_num_threads();
        if threads > 1 && self.images.div_ceil(self.images_per_chunk()) < threads {
            Parallelism::Rayon(threads)
        } else {
            Parallelism::None
        }
    }

    /// The length of a chunk of an image-major buffer of `channels` values
    /// a cell.
    fn chunk_len(&self, channels: usize) -> usize {
        self.images_per_chunk() * self.cells() * channels
    }

    /// For each cell of a chunk of `images` and each row of the kernel,
    /// the runs that make up that row's part of the cell's patch row: the
    /// kernel cells inside the plane, whose `inputs` values each lie side
    /// by side in the channel-last input as in the patch row, and those
    /// outside it on either side (the zero padding). Each run as where it
    /// starts among the chunk's patch rows, where in the chunk's input
    /// (`None` for padding), and its length.
    fn for_each_run(&self, images: usize, mut run: impl FnMut(usize, Option<usize>, usize)) {
        let (half, kernel, n) = (self.kernel / 2, self.kernel, self.inputs);
        for image in 0..images {
            for y in 0..self.height {
                for x in 0..self.width {
                    let row = (image * self.cells() + y * self.width + x) * self.patch();
                    // The kernel columns over the plane: x + kx - half in
                    // 0..width.
                    let first = half.saturating_sub(x);
                    let end = kernel.min(self.width + half - x);
                    for ky in 0..kernel {
                        let start = row + ky * kernel * n;
                        let Some(in_y) = (y + ky).checked_sub(half).filter(|&v| v < self.height)
                        else {
                            run(start, None, kernel * n);
                            continue;
                        };
                        if first > 0 {
                            run(start, None, first * n);
                        }
                        let in_x = x + first - half;
                        let input = ((image * self.height + in_y) * self.width + in_x) * n;
                        run(start + first * n, Some(input), (end - first) * n);
                        if end < kernel {
                            run(start + end * n, None, (kernel - end) * n);
                        }
                    }
                }
            }
        }
    }

    /// A chunk of `images`' patch rows from their channel-last input,
    /// each value written once (the padding's zeros included).
    fn gather_patches(&self, last: &[f32], images: usize, rows: &mut [f32]) {
        self.for_each_run(images, |patch, input, len| {
            let run = &mut rows[patch..patch + len];
            match input {
                Some(input) => run.copy_from_slice(&last[input..input + len]),
                None => run.fill(0.0),
            }
        });
    }

    /// The `[N, channels, H, W]` tensor in `storage` (`what` names it in
    /// errors) as channel-last rows `[N·cells, channels]`.
    fn channels_last(
        &self,
        storage: &CpuStorage,
        layout: &Layout,
        what: &str,
        channels: usize,
    ) -> Result<Vec<f32>> {
        let first = f32_slice(storage, layout, what)?;
        let cells = self.cells();
        let mut last = vec![0.0; first.len()];
        for image in 0..self.images {
            for channel in 0..channels {
                let plane = &first[(image * channels + channel) * cells..][..cells];
                for (cell, &value) in plane.iter().enumerate() {
                    last[(image * cells + cell) * channels + channel] = value;
                }
            }
        }
        Ok(last)
    }

    /// The images and cells of a chunk of a channel-last buffer of
    /// `channels` values a cell.
    fn chunk_cells(&self, chunk: &[f32], channels: usize) -> (usize, usize) {
        let images = chunk.len() / (self.cells() * channels);
        (images, images * self.cells())
    }

    /// `[N, channels, H, W]`.
    fn planes_shape(&self, channels: usize) -> Shape {
        Shape::from((self.images, channels, self.height, self.width))
    }

    /// The kernel `[out, in, k, k]` in `storage` as patch rows
    /// `[out, k·k·in]`.
    fn kernel_rows(&self, storage: &CpuStorage, layout: &Layout) -> Result<Vec<f32>> {
        let weight = f32_slice(storage, layout, "kernel")?;
        let mut rows = vec![0.0; weight.len()];
        for (entry, row) in kernel_entries(self) {
            rows[row] = weight[entry];
        }
        Ok(rows)
    }

    /// Adds a chunk of `images`' patch rows back onto the channel-last
    /// cells they came from.
    fn scatter_patches(&self, rows: &[f32], images: usize, last: &mut [f32]) {
        self.for_each_run(images, |patch, input, len| {
            let Some(input) = input else {
                return;
            };
            for (cell, value) in last[input..input + len]
                .iter_mut()
                .zip(&rows[patch..patch + len])
            {
                *cell += value;
            }
        });
    }
}

/// Channel-last rows `[N·cells, C]` into planes `[N, C, H, W]`.
fn rows_to_planes(rows: &[f32], channels: usize, cells: usize, out: &mut [f32]) {
    for (index, row) in rows.chunks_exact(channels).enumerate() {
        let (image, cell) = (index / cells, index % cells);
        for (channel, &value) in row.iter().enumerate() {
            out[(image * channels + channel) * cells + cell] = value;
        }
    }
}

/// A matrix read from a slice with strides.
#[derive(Clone, Copy)]
struct View<'a> {
    data: &'a [f32],
    rows: usize,
    columns: usize,
    row_stride: usize,
    column_stride: usize,
}

impl<'a> View<'a> {
    fn row_major(data: &'a [f32], rows: usize, columns: usize) -> View<'a> {
        View {
            data,
            rows,
            columns,
            row_stride: columns,
            column_stride: 1,
        }
    }

    fn transposed(self) -> View<'a> {
        View {
            rows: self.columns,
            columns: self.rows,
            row_stride: self.column_stride,
            column_stride: self.row_stride,
            ..self
        }
    }

    /// Whether every element the strides reach lies in `data`.
    fn fits(&self) -> bool {
        self.rows == 0
            || self.columns == 0
            || (self.rows - 1) * self.row_stride + (self.columns - 1) * self.column_stride
                < self.data.len()
    }
}

/// `out = lhs · rhs` (or `out += lhs · rhs` when `accumulate`), `out`
/// row-major.
fn multiply(out: &mut [f32], accumulate: bool, lhs: View, rhs: View, parallelism: Parallelism) {
    assert!(
        lhs.columns == rhs.rows && out.len() == lhs.rows * rhs.columns && lhs.fits() && rhs.fits(),
        "matrix product of mismatched shapes"
    );
    // SAFETY: the assertion above keeps every element the strides reach
    // inside its slice (`out` is row-major `lhs.rows × rhs.columns`), and
    // `out` is borrowed mutably, so it overlaps neither operand.
    unsafe {
        gemm::gemm(
            lhs.rows,
            rhs.columns,
            lhs.columns,
            out.as_mut_ptr(),
            1,
            rhs.columns as isize,
            accumulate,
            lhs.data.as_ptr(),
            lhs.column_stride as isize,
            lhs.row_stride as isize,
            rhs.data.as_ptr(),
            rhs.column_stride as isize,
            rhs.row_stride as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            parallelism,
        );
    }
}

/// Pairs of indices of the same kernel entry: in `[out, in, k, k]` and in
/// the patch-row layout `[out, k·k·in]` (kernel row, column, then input
/// plane).
fn kernel_entries(geometry: &Geometry) -> impl Iterator<Item = (usize, usize)> {
    let Geometry {
        inputs,
        outputs,
        kernel,
        ..
    } = *geometry;
    let cells = kernel * kernel;
    (0..outputs).flat_map(move |output| {
        (0..inputs).flat_map(move |input| {
            (0..cells).map(move |cell| {
                (
                    (output * inputs + input) * cells + cell,
                    (output * cells + cell) * inputs + input,
                )
            })
        })
    })
}

fn f32_slice<'a>(storage: &'a CpuStorage, layout: &Layout, what: &str) -> Result<&'a [f32]> {
    let Some((start, end)) = layout.contiguous_offsets() else {
        candle_core::bail!("the convolution's {what} must be contiguous");
    };
    Ok(&storage.as_slice::<f32>()?[start..end])
}

/// The convolution of planes by a kernel, without the bias.
struct Convolve;

impl CustomOp2 for Convolve {
    fn name(&self) -> &'static str {
        "size-keeping-conv"
    }

    fn cpu_fwd(
        &self,
        planes: &CpuStorage,
        planes_layout: &Layout,
        weight: &CpuStorage,
        weight_layout: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let g = Geometry::of(planes_layout.shape(), weight_layout.shape())?;
        let last = g.channels_last(planes, planes_layout, "planes", g.inputs)?;
        let kernel = g.kernel_rows(weight, weight_layout)?;
        let kernel = View::row_major(&kernel, g.outputs, g.patch()).transposed();
        let mut out = vec![0.0; g.images * g.outputs * g.cells()];
        let parallelism = g.parallelism();
        out.par_chunks_mut(g.chunk_len(g.outputs))
            .zip(last.par_chunks(g.chunk_len(g.inputs)))
            .for_each_init(
                || (Vec::new(), Vec::new()),
                |(patches, rows), (out, last)| {
                    let (images, cells) = g.chunk_cells(last, g.inputs);
                    patches.resize(cells * g.patch(), 0.0);
                    rows.resize(cells * g.outputs, 0.0);
                    g.gather_patches(last, images, patches);
                    let patches = View::row_major(patches, cells, g.patch());
                    multiply(rows, false, patches, kernel, parallelism);
                    rows_to_planes(rows, g.outputs, g.cells(), out);
                },
            );
        Ok((CpuStorage::F32(out), g.planes_shape(g.outputs)))
    }

    fn bwd(
        &self,
        planes: &Tensor,
        weight: &Tensor,
        _convolved: &Tensor,
        gradient: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let gradient = gradient.contiguous()?;
        // A network's first layer reads planes that no gradient reaches
        // (they come from the input): its planes' gradient is skipped.
        let planes_gradient = planes
            .track_op()
            .then(|| gradient.apply_op2_no_bwd(weight, &PlanesGradient))
            .transpose()?;
        let kernel = weight.dim(2)?;
        let weight_gradient = weight
            .track_op()
            .then(|| planes.apply_op2_no_bwd(&gradient, &KernelGradient { kernel }))
            .transpose()?;
        Ok((planes_gradient, weight_gradient))
    }
}

/// The gradient of the planes from the output's and the kernel.
struct PlanesGradient;

impl CustomOp2 for PlanesGradient {
    fn name(&self) -> &'static str {
        "size-keeping-conv-planes-gradient"
    }

    fn cpu_fwd(
        &self,
        gradient: &CpuStorage,
        gradient_layout: &Layout,
        weight: &CpuStorage,
        weight_layout: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let (images, _, height, width) = gradient_layout.shape().dims4()?;
        let (_, inputs, _, _) = weight_layout.shape().dims4()?;
        let g = Geometry::of(
            &Shape::from((images, inputs, height, width)),
            weight_layout.shape(),
        )?;
        let gradient_last = g.channels_last(gradient, gradient_layout, "gradient", g.outputs)?;
        let kernel = g.kernel_rows(weight, weight_layout)?;
        let kernel = View::row_major(&kernel, g.outputs, g.patch());
        let mut last = vec![0.0; g.images * g.inputs * g.cells()];
        let parallelism = g.parallelism();
        last.par_chunks_mut(g.chunk_len(g.inputs))
            .zip(gradient_last.par_chunks(g.chunk_len(g.outputs)))
            .for_each_init(Vec::new, |patches, (last, gradient)| {
                let (images, cells) = g.chunk_cells(last, g.inputs);
                patches.resize(cells * g.patch(), 0.0);
                let gradient = View::row_major(gradient, cells, g.outputs);
                multiply(patches, false, gradient, kernel, parallelism);
                g.scatter_patches(patches, images, last);
            });
        let mut out = vec![0.0; last.len()];
        rows_to_planes(&last, g.inputs, g.cells(), &mut out);
        Ok((CpuStorage::F32(out), g.planes_shape(g.inputs)))
    }
}

/// The gradient of a `kernel × kernel` kernel from the planes and the
/// output's gradient.
struct KernelGradient {
    kernel: usize,
}

impl CustomOp2 for KernelGradient {
    fn name(&self) -> &'static str {
        "size-keeping-conv-kernel-gradient"
    }

    fn cpu_fwd(
        &self,
        planes: &CpuStorage,
        planes_layout: &Layout,
        gradient: &CpuStorage,
        gradient_layout: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let (_, inputs, _, _) = planes_layout.shape().dims4()?;
        let (_, outputs, _, _) = gradient_layout.shape().dims4()?;
        let kernel = Shape::from((outputs, inputs, self.kernel, self.kernel));
        let g = Geometry::of(planes_layout.shape(), &kernel)?;
        if gradient_layout.shape() != &g.planes_shape(g.outputs) {
            candle_core::bail!(
                "a convolution's gradient {:?} does not match its planes {:?}",
                gradient_layout.shape(),
                planes_layout.shape()
            );
        }
        let last = g.channels_last(planes, planes_layout, "planes", g.inputs)?;
        let gradient_last = g.channels_last(gradient, gradient_layout, "gradient", g.outputs)?;
        let parallelism = g.parallelism();
        let zero = || vec![0.0; g.outputs * g.patch()];
        let rows = last
            .par_chunks(g.chunk_len(g.inputs))
            .zip(gradient_last.par_chunks(g.chunk_len(g.outputs)))
            .fold(
                || (zero(), Vec::new()),
                |(mut rows, mut patches), (last, gradient)| {
                    let (images, cells) = g.chunk_cells(last, g.inputs);
                    patches.resize(cells * g.patch(), 0.0);
                    g.gather_patches(last, images, &mut patches);
                    let gradient = View::row_major(gradient, cells, g.outputs).transposed();
                    let patches_view = View::row_major(&patches, cells, g.patch());
                    multiply(&mut rows, true, gradient, patches_view, parallelism);
                    (rows, patches)
                },
            )
            .map(|(rows, _)| rows)
            .reduce(zero, |mut sum, part| {
                sum.iter_mut().zip(part).for_each(|(s, p)| *s += p);
                sum
            });
        let mut out = vec![0.0; rows.len()];
        for (entry, row) in kernel_entries(&g) {
            out[entry] = rows[row];
        }
        Ok((CpuStorage::F32(out), kernel))
    }
}

#[cfg(test)]
mod tests {
    use candle_core::{Device, Var, D};
    use candle_nn::VarMap;

    use super::*;

    fn largest(t: &Tensor) -> f32 {
        t.abs()
            .unwrap()
            .flatten_all()
            .unwrap()
            .max(D::Minus1)
            .unwrap()
            .to_scalar()
            .unwrap()
    }

    /// Patch rows written over a buffer of leftovers (NaN) are each
    /// image's cells in the kernel's window, row, column, then plane, with
    /// zeros where the window leaves the plane: every value written, none
    /// left over.
    #[test]
    fn patch_rows_hold_each_window_and_zero_padding() {
        // A 3×3 kernel, and 5×5 ones wider than the plane (padding on both
        // sides of a kernel row).
        for (images, inputs, height, width, kernel) in
            [(2, 3, 4, 5, 3), (1, 2, 3, 1, 5), (2, 2, 3, 3, 5)]
        {
            let geometry = Geometry {
                images,
                inputs,
                outputs: 1,
                height,
                width,
                kernel,
            };
            // Channel-last input whose every value differs from zero.
            let last: Vec<f32> = (0..images * height * width * inputs)
                .map(|i| i as f32 + 1.0)
                .collect();
            let mut rows = vec![f32::NAN; images * height * width * kernel * kernel * inputs];
            geometry.gather_patches(&last, images, &mut rows);
            let half = kernel as isize / 2;
            let mut expected = Vec::new();
            for image in 0..images {
                for y in 0..height as isize {
                    for x in 0..width as isize {
                        for dy in -half..=half {
                            for dx in -half..=half {
                                let (in_y, in_x) = (y + dy, x + dx);
                                let inside = (0..height as isize).contains(&in_y)
                                    && (0..width as isize).contains(&in_x);
                                for plane in 0..inputs {
                                    expected.push(if inside {
                                        let cell = in_y as usize * width + in_x as usize;
                                        last[(image * height * width + cell) * inputs + plane]
                                    } else {
                                        0.0
                                    });
                                }
                            }
                        }
                    }
                }
            }
            assert_eq!(rows, expected, "{:?}", (height, width, kernel));
        }
    }

    /// Planes zero outside a band of rows, as seed 004's are, give the
    /// output and the kernel's and bias's gradients of candle's `conv2d`,
    /// whether the band is cropped (planes no gradient reaches) or not
    /// (planes with a gradient, which must then be right in the zero rows
    /// too): bands in the middle, at either edge, of one row, too wide to
    /// crop, and no band at all.
    #[test]
    fn planes_zero_outside_a_band_of_rows() {
        let device = Device::Cpu;
        let (images, inputs, outputs, height, width, kernel) = (3, 4, 5, 17, 17, 5);
        let map = VarMap::new();
        let vb = VarBuilder::from_varmap(&map, DType::F32, &device);
        let conv = Conv::build(inputs, outputs, kernel, vb).unwrap();
        for var in map.all_vars() {
            var.set(&var.randn_like(0.0, 1.0).unwrap()).unwrap();
        }
        let weights = Tensor::randn(0f32, 1.0, (images, outputs, height, width), &device).unwrap();
        let loss = |out: &Tensor| (out * &weights).unwrap().sum_all().unwrap();
        // Each band with the rows convolved: its reach, or all (None).
        for (band, reached) in [
            (6..10, Some(4..12)),
            (0..3, Some(0..5)),
            (15..17, Some(13..17)),
            (8..9, Some(6..11)),
            (1..16, None),
            (0..0, None),
        ] {
            let mask: Vec<f32> = (0..height)
                .map(|row| f32::from(band.contains(&row)))
                .collect();
            let mask = Tensor::from_vec(mask, (1, 1, height, 1), &device).unwrap();
            let planes = Tensor::randn(0f32, 1.0, (images, inputs, height, width), &device)
                .unwrap()
                .broadcast_mul(&mask)
                .unwrap();
            assert_eq!(rows_in_use(&planes).unwrap(), band);
            assert_eq!(rows_reached(band.clone(), kernel / 2, height), reached);
            let reference = planes
                .conv2d(&conv.weight, kernel / 2, 1, 1, 1)
                .unwrap()
                .broadcast_add(&conv.bias.reshape((outputs, 1, 1)).unwrap())
                .unwrap();
            let expected = loss(&reference).backward().unwrap();
            let tracked = Var::from_tensor(&planes).unwrap();
            for input in [&planes, tracked.as_tensor()] {
                let ours = conv.forward(input).unwrap();
                let difference = largest(&(&ours - &reference).unwrap());
                assert!(
                    difference <= 1e-5 * largest(&reference),
                    "{band:?}: {difference}"
                );
                let got = loss(&ours).backward().unwrap();
                for param in [&conv.weight, &conv.bias] {
                    let (g, e) = (got.get(param).unwrap(), expected.get(param).unwrap());
                    let difference = largest(&(g - e).unwrap());
                    assert!(difference <= 1e-4 * largest(e), "{band:?}: {difference}");
                }
                if input.track_op() {
                    let g = got.get(input).unwrap();
                    let e = loss(&tracked.conv2d(&conv.weight, kernel / 2, 1, 1, 1).unwrap())
                        .backward()
                        .unwrap();
                    let e = e.get(input).unwrap();
                    let difference = largest(&(g - e).unwrap());
                    assert!(difference <= 1e-4 * largest(e), "{band:?}: {difference}");
                }
            }
        }
    }

    /// The layer against candle's `conv2d` with the same tensors: the
    /// output and the gradients of the planes, the kernel and the bias
    /// (of a loss that weighs every output differently) agree to float
    /// rounding, on planes the size of the card networks' and seed 004's,
    /// with enough images for several chunks, one cell, a 1×1 kernel.
    #[test]
    fn agrees_with_candles_convolution_and_its_gradients() {
        let device = Device::Cpu;
        for (images, inputs, outputs, height, width, kernel) in [
            (3, 2, 5, 4, 13, 3),
            (1, 1, 1, 1, 1, 3),
            (5, 33, 4, 17, 17, 5),
            (2, 3, 2, 5, 6, 1),
            (4, 6, 7, 8, 8, 5),
            (12, 10, 3, 9, 21, 7),
        ] {
            let map = VarMap::new();
            let vb = VarBuilder::from_varmap(&map, DType::F32, &device);
            let conv = Conv::build(inputs, outputs, kernel, vb).unwrap();
            for var in map.all_vars() {
                var.set(&var.randn_like(0.0, 1.0).unwrap()).unwrap();
            }
            let geometry = Geometry {
                images,
                inputs,
                outputs,
                height,
                width,
                kernel,
            };
            if images == 5 {
                assert_eq!(
                    geometry.images_per_chunk(),
                    2,
                    "several chunks, the last short"
                );
            }
            let planes = Var::randn(0f32, 1.0, (images, inputs, height, width), &device).unwrap();
            let weights =
                Tensor::randn(0f32, 1.0, (images, outputs, height, width), &device).unwrap();
            let reference = planes
                .conv2d(&conv.weight, kernel / 2, 1, 1, 1)
                .unwrap()
                .broadcast_add(&conv.bias.reshape((outputs, 1, 1)).unwrap())
                .unwrap();
            let ours = conv.forward(&planes).unwrap();
            let shape = (images, inputs, height, width, kernel);
            assert_eq!(ours.dims(), reference.dims(), "{shape:?}");
            let difference = largest(&(&ours - &reference).unwrap());
            assert!(
                difference <= 1e-5 * largest(&reference),
                "{shape:?}: {difference}"
            );
            let loss = |out: &Tensor| (out * &weights).unwrap().sum_all().unwrap();
            let expected = loss(&reference).backward().unwrap();
            let got = loss(&ours).backward().unwrap();
            // The same planes as a plain tensor, as a network's input
            // arrives: no gradient of them, the kernel's the same.
            let input = planes.as_tensor().detach();
            let from_input = loss(&conv.forward(&input).unwrap()).backward().unwrap();
            assert!(from_input.get(&input).is_none());
            // A frozen kernel: the planes' gradient alone.
            let frozen = Conv {
                weight: conv.weight.detach(),
                bias: conv.bias.detach(),
            };
            let through_frozen = loss(&frozen.forward(&planes).unwrap()).backward().unwrap();
            assert!(through_frozen.get(&frozen.weight).is_none());
            for (name, tensor, got) in [
                ("planes", planes.as_tensor(), &got),
                ("kernel", &conv.weight, &got),
                ("bias", &conv.bias, &got),
                ("kernel from an input", &conv.weight, &from_input),
                (
                    "planes through a frozen kernel",
                    planes.as_tensor(),
                    &through_frozen,
                ),
            ] {
                let (want, have) = (expected.get(tensor).unwrap(), got.get(tensor).unwrap());
                let difference = largest(&(have - want).unwrap());
                assert!(
                    difference <= 1e-5 * largest(want),
                    "{shape:?} {name}: {difference} of {}",
                    largest(want)
                );
            }
        }
    }

    /// A transposed (not contiguous) input convolves as its copy does.
    #[test]
    fn reads_planes_laid_out_in_any_order() {
        let device = Device::Cpu;
        let map = VarMap::new();
        let conv =
            Conv::build(2, 3, 3, VarBuilder::from_varmap(&map, DType::F32, &device)).unwrap();
        let planes = Tensor::randn(0f32, 1.0, (2, 2, 6, 4), &device).unwrap();
        let transposed = planes.transpose(2, 3).unwrap();
        assert!(!transposed.is_contiguous());
        let difference = largest(
            &(conv.forward(&transposed).unwrap()
                - conv.forward(&transposed.contiguous().unwrap()).unwrap())
            .unwrap(),
        );
        assert_eq!(difference, 0.0);
    }

    /// A batch of no images convolves to none; planes of no cells are
    /// refused by name rather than divided by.
    #[test]
    fn empty_batches_and_empty_planes() {
        let device = Device::Cpu;
        let map = VarMap::new();
        let conv =
            Conv::build(2, 3, 3, VarBuilder::from_varmap(&map, DType::F32, &device)).unwrap();
        let none = Tensor::zeros((0, 2, 4, 13), DType::F32, &device).unwrap();
        assert_eq!(conv.forward(&none).unwrap().dims(), [0, 3, 4, 13]);
        let flat = Tensor::zeros((2, 2, 0, 13), DType::F32, &device).unwrap();
        let error = conv.forward(&flat).unwrap_err().to_string();
        assert!(error.contains("planes need a cell"), "{error}");
    }

    #[test]
    fn an_even_kernel_is_refused() {
        let map = VarMap::new();
        let vb = VarBuilder::from_varmap(&map, DType::F32, &Device::Cpu);
        let error = Conv::build(2, 3, 4, vb).unwrap_err().to_string();
        assert!(error.contains("odd kernel, not 4"), "{error}");
    }
}
