//! `rnad-uecda-client --host H --port P --player SPEC`: plays every game
//! of a UECda server (protocol 20070, or 20060 with `--protocol 20060`)
//! with one rnad player: `default` (the
//! UECda standard player), `uniform`, seed 003's Monte-Carlo players
//! (`epsilon:1500`, …) or a trained network (`checkpoint:FILE[:KIND][:greedy]`).
//! Exits 0 when the server says every game is over, 1 with the reason on a
//! malformed or unexpected message or a closed connection, 2 where the
//! player cannot play (an unknown name, a checkpoint of another game).

use clap::Parser;
use rnad_evaluator::players::PlayerSpec;
use rnad_games::Daihinmin;
use rnad_uecda::client::connect_and_play;
use rnad_uecda::table::Protocol;

#[derive(Parser)]
#[command(version, about = "Plays a UECda Daihinmin server with an rnad player")]
struct Args {
    /// The server's host.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// The server's port.
    #[arg(long, default_value_t = 42485)]
    port: u16,
    /// The player: default, uniform, `random-sampling:N`,
    /// `epsilon:N[:x[:d]]`, `softmax:N[:r]`, `ucb1-tuned:N`, `majority:N`, `majority-full:N`
    /// or `checkpoint:FILE[:KIND][:greedy]`.
    #[arg(long, default_value = "default")]
    player: PlayerSpec,
    /// The name announced to the server (at most 14 characters).
    #[arg(long, default_value = "rnad")]
    name: String,
    /// The protocol: 20070 (announced, with the name) or 20060 (the
    /// older one, which announces nothing).
    #[arg(long, default_value = "20070")]
    protocol: Protocol,
    /// Seed of the player's randomness and of the client's guesses.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

fn main() {
    rnad_process::logging::init(rnad_process::logging::LogFormat::Text);
    let args = Args::parse();
    let game = Daihinmin::spec_with_ranks(None).expect("the registry's Daihinmin");
    let mut player = match args.player.state_player(&game, args.seed) {
        Ok(player) => player,
        Err(e) => {
            tracing::error!("{e}");
            std::process::exit(2);
        }
    };
    let address = format!("{}:{}", args.host, args.port);
    match connect_and_play(
        &address,
        (&args.name, args.protocol),
        player.as_mut(),
        args.seed,
    ) {
        Ok(played) => {
            tracing::info!(
                id = played.id,
                games = played.games,
                refused_plays = played.refused_plays,
                resynchronised = played.resynchronised,
                "every game is over"
            );
            println!(
                "{{\"id\":{},\"games\":{},\"refused_plays\":{},\"resynchronised\":{}}}",
                played.id, played.games, played.refused_plays, played.resynchronised
            );
        }
        Err(e) => {
            tracing::error!("{e}");
            std::process::exit(1);
        }
    }
}
