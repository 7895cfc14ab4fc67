//! A learner serving the tarpc protocol: the service and the metrics
//! endpoint on a tokio runtime, the training loop on the calling thread.

use std::net::SocketAddr;

use rnad_process::shutdown::Shutdown;

use crate::error::LearnerError;
use crate::evaluate::Evaluate;
use crate::resume::Opened;
use crate::service::{self, ServiceLimits};
use crate::training::{RunSummary, Source, TrainOptions, Trainer};

/// Where a served learner listens, and how.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The tarpc service's address.
    pub listen: SocketAddr,
    /// The Prometheus endpoint's address, if any.
    pub metrics: Option<SocketAddr>,
    /// What the service allows its peers.
    pub limits: ServiceLimits,
    /// How training behaves.
    pub train: TrainOptions,
}

/// The addresses a served learner bound (useful with port 0), and the
/// registry its endpoint serves.
#[derive(Clone, Debug)]
pub struct Bound {
    /// The tarpc service.
    pub service: SocketAddr,
    /// The metrics endpoint.
    pub metrics: Option<SocketAddr>,
    /// What the endpoint serves: in-process actors register their metrics
    /// here too.
    pub registry: prometheus::Registry,
}

/// Serves the opened run and trains it until `shutdown`, with `evaluation`
/// judging its policies if given; `ready` is called once the service
/// listens (before training starts) with the bound addresses and the step
/// training resumes from, and `trained` once training ends, before the
/// service closes (so in-process clients can stop first, quietly).
pub fn run_serve(
    opened: Opened,
    evaluation: Option<Box<dyn Evaluate + '_>>,
    options: ServeOptions,
    shutdown: &Shutdown,
    ready: impl FnOnce(Bound, u64),
    trained: impl FnOnce(),
) -> Result<RunSummary, LearnerError> {
    let Opened {
        dir,
        resumed,
        hub,
        queue,
    } = opened;
    let mut learner = resumed.learner;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("learner-rpc")
        .enable_all()
        .build()
        .map_err(|e| LearnerError::io(std::path::Path::new("tokio runtime"), e))?;
    let bound = runtime.block_on(async {
        let service = service::serve(options.listen, hub.clone(), options.limits.clone())
            .await
            .map_err(|e| LearnerError::Bind {
                addr: options.listen,
                source: e,
            })?;
        let metrics_addr = match options.metrics {
            Some(addr) => Some(
                rnad_process::metrics::serve(addr, hub.metrics.registry.clone())
                    .await
                    .map_err(|e| LearnerError::Bind { addr, source: e })?,
            ),
            None => None,
        };
        Ok::<_, LearnerError>(Bound {
            service,
            metrics: metrics_addr,
            registry: hub.metrics.registry.clone(),
        })
    })?;
    ready(bound, learner.state().step);
    let mut trainer = Trainer {
        dir: &dir,
        hub: &hub,
        source: Source::Queue {
            receiver: queue,
            runtime: runtime.handle().clone(),
        },
        wall_offset: resumed.wall_offset,
        evaluation,
        target_average: resumed.target_average,
    };
    let result = trainer.run(&mut learner, &options.train, shutdown);
    trained();
    hub.stop_accepting();
    runtime.shutdown_background();
    result
}
