//! The first layer over inputs that are mostly zero.
//!
//! Card games encode cards as bits: a Daihinmin observation has 557
//! entries of which a few dozen are not zero, so the MLP's first matrix
//! product, two thirds of a forward pass, multiplies zeros. On the CPU
//! the first layer instead adds, for each row, the weight columns of that
//! row's nonzero inputs times their values, and its weight gradient
//! scatters each row's output gradient into those columns: both cost the
//! nonzeros, not the width. Dense inputs (and any other device) keep the
//! matrix product, which is faster there. A batch is scanned for its
//! nonzeros once ([`NetInput`]), however many networks read it (the
//! learner runs four on each batch).

use std::sync::{Arc, OnceLock};

use candle_core::{Device, Result, Tensor};
use candle_nn::Linear;

/// A batch of observations as the networks read it: the tensor, and its
/// nonzeros, found the first time a network's first layer asks.
#[derive(Debug)]
pub struct NetInput {
    obs: Tensor,
    sparse: OnceLock<Option<Arc<SparseRows>>>,
}

impl NetInput {
    /// The observations `[N, input]`.
    pub fn new(obs: Tensor) -> NetInput {
        NetInput {
            obs,
            sparse: OnceLock::new(),
        }
    }

    /// `rows` observations of `width` values each, row after row, on
    /// `device`: on the CPU their nonzeros are found as they are moved
    /// in, without reading the tensor back.
    pub fn from_rows(
        values: Vec<f32>,
        rows: usize,
        width: usize,
        device: &Device,
    ) -> Result<NetInput> {
        let sparse = OnceLock::new();
        if matches!(device, Device::Cpu) {
            let _ = sparse.set(SparseRows::of_values(&values, rows, width).map(Arc::new));
        }
        Ok(NetInput {
            obs: Tensor::from_vec(values, (rows, width), device)?,
            sparse,
        })
    }

    /// The observations as a tensor.
    pub fn tensor(&self) -> &Tensor {
        &self.obs
    }

    /// The observations as their nonzeros, where they are on the CPU and
    /// mostly zero.
    pub(crate) fn sparse(&self) -> Result<Option<Arc<SparseRows>>> {
        if let Some(found) = self.sparse.get() {
            return Ok(found.clone());
        }
        let found = SparseRows::of(&self.obs)?.map(Arc::new);
        Ok(self.sparse.get_or_init(|| found).clone())
    }
}

/// Inputs with at most this share of nonzeros take the sparse path:
/// below it, adding columns beats the dense product on a CPU core.
const SPARSE_AT_MOST: f64 = 0.25;

/// Inputs narrower than this keep the dense product: their first layer
/// is a small part of a forward pass whatever it costs (Leduc's 30
/// inputs), and a dense product of few columns is as fast as any.
const SPARSE_FROM_WIDTH: usize = 128;

/// A batch of input rows kept as their nonzero entries.
#[derive(Clone, Debug)]
pub(crate) struct SparseRows {
    /// Where each row's entries start, then where the last row's end.
    offsets: Vec<usize>,
    /// Each entry's column.
    columns: Vec<u32>,
    /// Each entry's value.
    values: Vec<f32>,
    /// The rows' width.
    width: usize,
}

impl SparseRows {
    /// `obs` (`[N, width]`, f32 on the CPU) as its nonzero entries, where
    /// few enough are not zero; none otherwise.
    pub(crate) fn of(obs: &Tensor) -> Result<Option<SparseRows>> {
        if !matches!(obs.device(), Device::Cpu) || obs.dtype() != candle_core::DType::F32 {
            return Ok(None);
        }
        let (rows, width) = obs.dims2()?;
        if width < SPARSE_FROM_WIDTH {
            return Ok(None);
        }
        Ok(SparseRows::of_values(
            &obs.flatten_all()?.to_vec1::<f32>()?,
            rows,
            width,
        ))
    }

    /// [`SparseRows::of`] for `rows` rows of `width` values, row after
    /// row.
    fn of_values(flat: &[f32], rows: usize, width: usize) -> Option<SparseRows> {
        if width < SPARSE_FROM_WIDTH {
            return None;
        }
        let nonzero = flat.iter().filter(|&&v| v != 0.0).count();
        if nonzero as f64 > SPARSE_AT_MOST * flat.len() as f64 {
            return None;
        }
        let mut sparse = SparseRows {
            offsets: Vec::with_capacity(rows + 1),
            columns: Vec::with_capacity(nonzero),
            values: Vec::with_capacity(nonzero),
            width,
        };
        sparse.offsets.push(0);
        for row in flat.chunks_exact(width).take(rows) {
            for (column, &value) in row.iter().enumerate() {
                if value != 0.0 {
                    sparse.columns.push(column as u32);
                    sparse.values.push(value);
                }
            }
            sparse.offsets.push(sparse.columns.len());
        }
        Some(sparse)
    }

    fn rows(&self) -> usize {
        self.offsets.len() - 1
    }

    /// `layer` applied to the rows: `x·Wᵀ + b`, `[N, out]`.
    pub(crate) fn linear(&self, layer: &Linear) -> Result<Tensor> {
        let weight = layer.weight();
        let (out, width) = weight.dims2()?;
        if width != self.width {
            candle_core::bail!("a layer of {width} inputs given rows of {}", self.width);
        }
        // Column j of W is row j of Wᵀ: contiguous, for the inner loop.
        let columns = weight.t()?.contiguous()?.flatten_all()?.to_vec1::<f32>()?;
        let bias = match layer.bias() {
            Some(bias) => bias.to_vec1::<f32>()?,
            None => vec![0.0; out],
        };
        let mut result = Vec::with_capacity(self.rows() * out);
        for row in 0..self.rows() {
            let start = result.len();
            result.extend_from_slice(&bias);
            let sum = &mut result[start..];
            for entry in self.offsets[row]..self.offsets[row + 1] {
                let (column, value) = (self.columns[entry] as usize, self.values[entry]);
                let weights = &columns[column * out..(column + 1) * out];
                for (s, w) in sum.iter_mut().zip(weights) {
                    *s += value * w;
                }
            }
        }
        Tensor::from_vec(result, (self.rows(), out), &Device::Cpu)
    }

    /// The gradient of a layer's weight (`[out, width]`) from the gradient
    /// at its output (`d_output`, `[N, out]`): `d_outputᵀ·x`.
    pub(crate) fn weight_gradient(&self, d_output: &Tensor) -> Result<Tensor> {
        let (rows, out) = d_output.dims2()?;
        if rows != self.rows() {
            candle_core::bail!("{rows} output gradients for {} rows", self.rows());
        }
        let d = d_output.flatten_all()?.to_vec1::<f32>()?;
        // Accumulated as Wᵀ's rows (contiguous per column), then turned.
        let mut transposed = vec![0.0f32; self.width * out];
        for row in 0..rows {
            let d_row = &d[row * out..(row + 1) * out];
            for entry in self.offsets[row]..self.offsets[row + 1] {
                let (column, value) = (self.columns[entry] as usize, self.values[entry]);
                let target = &mut transposed[column * out..(column + 1) * out];
                for (t, g) in target.iter_mut().zip(d_row) {
                    *t += value * g;
                }
            }
        }
        Tensor::from_vec(transposed, (self.width, out), &Device::Cpu)?
            .t()?
            .contiguous()
    }
}

#[cfg(test)]
mod tests {
    use candle_core::Module;

    use super::*;

    /// A layer of 3 outputs over 160 inputs, and rows with one or two
    /// nonzeros (and an empty one).
    #[test]
    fn sparse_rows_give_the_dense_layer_and_its_weight_gradient() {
        let cpu = &Device::Cpu;
        let w = 160;
        let weights: Vec<f32> = (0..3 * w).map(|i| (i as f32 * 0.37).sin()).collect();
        let weight = Tensor::from_vec(weights, (3, w), cpu).unwrap();
        let bias = Tensor::new(&[0.1f32, -0.2, 0.3], cpu).unwrap();
        let layer = Linear::new(weight, Some(bias));
        let mut x = vec![0.0f32; 4 * w];
        x[2] = 1.0;
        x[w + 5] = 1.0;
        x[w + 150] = 0.5;
        x[3 * w] = -2.0;
        let obs = Tensor::from_vec(x, (4, w), cpu).unwrap();
        let sparse = SparseRows::of(&obs).unwrap().expect("4 of 640 are nonzero");
        let close = |a: &Tensor, b: &Tensor| {
            let (a, b) = (
                a.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
                b.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
            );
            assert_eq!(a.len(), b.len());
            for (x, y) in a.iter().zip(&b) {
                assert!((x - y).abs() < 1e-6, "{a:?} vs {b:?}");
            }
        };
        close(
            &sparse.linear(&layer).unwrap(),
            &layer.forward(&obs).unwrap(),
        );
        let d: Vec<f32> = (0..12).map(|i| i as f32 - 5.5).collect();
        let d = Tensor::from_vec(d, (4, 3), cpu).unwrap();
        let dense_gradient = d.t().unwrap().matmul(&obs).unwrap();
        close(&sparse.weight_gradient(&d).unwrap(), &dense_gradient);
        // Dense rows, and narrow ones, stay dense.
        let busy = Tensor::ones((2, w), candle_core::DType::F32, cpu).unwrap();
        assert!(SparseRows::of(&busy).unwrap().is_none());
        let narrow = obs.narrow(1, 0, 8).unwrap().contiguous().unwrap();
        assert!(SparseRows::of(&narrow).unwrap().is_none());
    }
}
