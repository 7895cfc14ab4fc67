//! An actor whose forward passes run on a GPU plays the CPU actor's games:
//! the same behaviour policies (to float tolerance) and so the same
//! sampled actions, through a change of snapshot (the parameters it keeps
//! on the GPU must follow); a GPU named twice is one device. Needs an NVIDIA GPU and the cuda build:
//!
//! ```sh
//! source .ci/cuda-env.sh
//! cargo test --release -p rnad-actor --features cuda --test device -- --ignored
//! ```
#![cfg(feature = "cuda")]

use candle_core::Device;
use rnad_actor::selfplay::{PolicySnapshot, RngStream, SelfPlay};
use rnad_games::GameSpec;
use rnad_net::{parse_device, NetShape, ParamSet, TorsoKind};
use rnad_wire::trajectory::Trajectory;

/// 200 games with each of two snapshots, one after the other.
fn play(mut actor: SelfPlay, shape: &NetShape) -> Vec<Trajectory> {
    let mut games = Vec::new();
    for (version, seed) in [(1, 5), (2, 6)] {
        let snapshot = PolicySnapshot {
            version,
            params: ParamSet::init(shape, seed).unwrap(),
        };
        games.extend(actor.play_fresh(&snapshot, 200).unwrap());
    }
    games
}

#[test]
#[ignore = "needs an NVIDIA GPU and the cuda build (see the file's header)"]
fn a_gpu_actor_plays_the_cpu_actors_games() {
    let gpu = Device::new_cuda(0).expect("a CUDA device");
    for (game, torso, hidden) in [
        ("leduc_poker", TorsoKind::Mlp, vec![64, 64]),
        ("universal_poker", TorsoKind::CardConv, vec![8, 64]),
    ] {
        let game = GameSpec::parse(game).unwrap().load();
        let shape = NetShape {
            input: game.information_state_tensor_size(),
            torso,
            hidden,
            actions: game.num_distinct_actions(),
            head: rnad_net::HeadKind::Dense,
            grouped: false,
            cards: game.card_layout(),
        };
        let actor = || SelfPlay::new(game.clone(), shape.clone(), 64, RngStream::of(1));
        let on_cpu = play(actor(), &shape);
        let on_gpu = play(actor().on_device(gpu.clone()), &shape);
        assert_eq!(on_cpu.len(), on_gpu.len());
        let mut decisions = 0;
        for (cpu, gpu) in on_cpu.iter().zip(&on_gpu) {
            assert_eq!(cpu.param_version, gpu.param_version);
            for (a, b) in cpu.decisions().zip(gpu.decisions()) {
                assert_eq!(a.action, b.action, "{torso:?}");
                for (p, q) in a.behaviour.iter().zip(b.behaviour) {
                    assert!(
                        (p - q).abs() < 1e-4,
                        "{torso:?}: {:?} vs {:?}",
                        a.behaviour,
                        b.behaviour
                    );
                }
                decisions += 1;
            }
        }
        assert!(decisions >= 400, "{decisions}");
    }
}

/// The learner's `--device cuda` and the actors' `--actor-device cuda:0`
/// are one device (one CUDA context), so parameters pass between them
/// without a copy.
#[test]
#[ignore = "needs an NVIDIA GPU and the cuda build (see the file's header)"]
fn one_gpu_named_twice_is_one_device() {
    let learner = parse_device("cuda").unwrap();
    let actors = parse_device("cuda:0").unwrap();
    assert!(learner.same_device(&actors));
}
