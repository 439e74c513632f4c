//! `speech-gateway gate --framework soc2 --min-score 80 --max-open-findings 0`: asks the gateway's
//! release gate; exit 0 on pass, 1 on fail, 2 when the gate could not be asked.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = speech_gateway::gate_command(&args, &mut std::io::stdout(), &mut std::io::stderr(), &|name| std::env::var(name).ok());
    std::process::exit(code);
}
