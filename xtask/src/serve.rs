//! `cargo xtask serve [--port P] [--checkpoint DIR ...]`: the board in
//! the browser (`minnow_serve`, docs/SERVE.md) on 127.0.0.1 only.

use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The port on 127.0.0.1 (0: any free one).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// A run directory (or checkpoint file) of az-connect4, az-backgammon
    /// or td-backgammon to play besides the shipped agents; repeatable.
    /// The first of each game is its default.
    #[arg(long)]
    checkpoint: Vec<PathBuf>,
}

pub fn run(args: ServeArgs) -> Result<(), String> {
    let config =
        minnow_serve::ServeConfig { agents_dir: crate::workspace_root().join("agents"), checkpoints: args.checkpoint };
    let app = minnow_serve::app(&config)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("serve: the async runtime: {e}"))?;
    runtime.block_on(async move {
        // Loopback only: the pages read run directories and start searches,
        // nothing to offer the network.
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port))
            .await
            .map_err(|e| format!("serve: 127.0.0.1:{}: {e}", args.port))?;
        let addr = listener.local_addr().map_err(|e| format!("serve: {e}"))?;
        minnow_train::outln!("minnow: http://{addr}/ (play, analyse, watch); Ctrl-C stops");
        axum::serve(listener, app).await.map_err(|e| format!("serve: {e}"))
    })
}
