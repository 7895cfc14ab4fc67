//! The two ways a network gets its tensors from a candle `VarBuilder`:
//! [`ParameterRecorder`] notes what a module asks for (names and shapes,
//! in order), and [`ParameterList`] hands out a [`super::ParamSet`]'s
//! tensors in that same order. A module is therefore described once, by
//! the code that builds it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use candle_core::{DType, Device, Result, Shape, Tensor};
use candle_nn::var_builder::SimpleBackend;
use candle_nn::{Init, VarBuilder};

/// The names and shapes of the tensors `build` asks its builder for, in
/// order: a module's parameters, listed by building it.
pub fn parameter_names<T>(
    build: impl FnOnce(VarBuilder) -> Result<T>,
) -> Result<Vec<(String, Vec<usize>)>> {
    let recorder = ParameterRecorder::default();
    build(recorder.builder())?;
    Ok(recorder.requested())
}

/// Notes every tensor a module asks for and hands out zeros that take no
/// memory.
#[derive(Default)]
pub struct ParameterRecorder {
    requested: Mutex<Vec<(String, Vec<usize>)>>,
}

impl ParameterRecorder {
    /// A builder over this recorder.
    pub fn builder(&self) -> VarBuilder<'_> {
        VarBuilder::from_backend(Box::new(self), DType::F32, Device::Cpu)
    }

    /// The names and shapes asked for so far, in order.
    pub fn requested(&self) -> Vec<(String, Vec<usize>)> {
        self.requested.lock().expect("recorder lock").clone()
    }
}

impl SimpleBackend for &ParameterRecorder {
    fn get(&self, s: Shape, name: &str, _: Init, dtype: DType, dev: &Device) -> Result<Tensor> {
        self.requested
            .lock()
            .expect("recorder lock")
            .push((name.to_string(), s.dims().to_vec()));
        Tensor::zeros((), dtype, dev)?.broadcast_as(s)
    }

    fn get_unchecked(&self, name: &str, _: DType, _: &Device) -> Result<Tensor> {
        candle_core::bail!("the parameter recorder needs a shape for {name}")
    }

    fn contains_tensor(&self, _: &str) -> bool {
        false
    }
}

/// Hands out `tensors` in the order a module asks for them, checking
/// each one's shape.
pub struct ParameterList<'a> {
    tensors: &'a [Tensor],
    next: AtomicUsize,
}

impl<'a> ParameterList<'a> {
    /// A list handing out `tensors`.
    pub fn new(tensors: &'a [Tensor]) -> ParameterList<'a> {
        ParameterList {
            tensors,
            next: AtomicUsize::new(0),
        }
    }

    /// A builder over this list (on the tensors' device).
    pub fn builder(&self) -> VarBuilder<'_> {
        let device = self
            .tensors
            .first()
            .map_or(Device::Cpu, |t| t.device().clone());
        VarBuilder::from_backend(Box::new(self), DType::F32, device)
    }

    /// Fails unless the module took every tensor.
    pub fn all_taken(&self) -> Result<()> {
        let taken = self.next.load(Ordering::Relaxed);
        if taken != self.tensors.len() {
            candle_core::bail!(
                "the network has {taken} parameter tensors, {} were given",
                self.tensors.len()
            )
        }
        Ok(())
    }
}

impl SimpleBackend for &ParameterList<'_> {
    fn get(&self, s: Shape, name: &str, _: Init, _: DType, _: &Device) -> Result<Tensor> {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        let Some(tensor) = self.tensors.get(i) else {
            candle_core::bail!(
                "the network asks for a parameter {name} beyond the {} it was given",
                self.tensors.len()
            )
        };
        if tensor.shape() != &s {
            candle_core::bail!(
                "parameter {i} ({name}) has shape {:?}, the network needs {:?}",
                tensor.dims(),
                s.dims()
            )
        }
        Ok(tensor.clone())
    }

    fn get_unchecked(&self, name: &str, _: DType, _: &Device) -> Result<Tensor> {
        candle_core::bail!("parameter {name} asked for without a shape")
    }

    fn contains_tensor(&self, _: &str) -> bool {
        false
    }
}
