//! `rnad-uecda-server --port P --games G`: a UECda protocol server over
//! the games layer's rules, for testing clients: waits for five, plays G
//! games, prints each player's points and the refused plays as JSON.

use std::net::TcpListener;
use std::time::Duration;

use clap::Parser;
use rnad_uecda::server::serve;

#[derive(Parser)]
#[command(version, about = "A UECda Daihinmin server for testing clients")]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Port.
    #[arg(long, default_value_t = 42485)]
    port: u16,
    /// Games in the match.
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// Seed of the deals.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Seconds to wait for any one message.
    #[arg(long, default_value_t = 60.0)]
    timeout: f64,
}

fn main() {
    rnad_process::logging::init(rnad_process::logging::LogFormat::Text);
    let args = Args::parse();
    let listener = match TcpListener::bind((args.host.as_str(), args.port)) {
        Ok(l) => l,
        Err(e) => {
            tracing::error!("listening on {}:{}: {e}", args.host, args.port);
            std::process::exit(1);
        }
    };
    tracing::info!(
        port = args.port,
        games = args.games,
        "waiting for five players"
    );
    match serve(
        &listener,
        args.games,
        args.seed,
        Duration::from_secs_f64(args.timeout),
    ) {
        Ok(report) => println!(
            "{{\"games\":{},\"names\":{:?},\"points\":{:?},\"refused_plays\":{}}}",
            report.games, report.names, report.points, report.refused_plays
        ),
        Err(e) => {
            tracing::error!("{e}");
            std::process::exit(1);
        }
    }
}
