// hookhost plugin for OpenCode — written by `hookhost install --runtime opencode`;
// `hookhost uninstall` removes it, `hookhost doctor` checks it. Do not edit: install writes it
// again.
//
// Every tool call is judged by hookhost's hooks before it runs (a block stops it, and its reason
// reaches the model), every tool's output after it ran (a secret in it is masked before the
// model sees it), and every message you send (a secret in it is masked; a blocked message is
// replaced by the reason). Each event goes to COMMAND as hookhost's own envelope; the answer is
// what `hookhost run --output opencode` writes (hookhost's host/src/protocol/opencode.rs).
// Exit 1 is hookhost's own error that must not block after a tool; before a tool call or a
// message, it and any other failure to get an answer (no program, a crash, a timeout) block
// unless FAIL says otherwise.
// OpenCode's plugin hooks: https://opencode.ai/docs/plugins/ — the mapping is hookhost's
// docs/INTEGRATIONS.md, "OpenCode".
import { spawn } from "node:child_process";

const COMMAND = /*COMMAND*/["hookhost", "run", "--output", "opencode"];
// "closed": a failure to get an answer blocks tool calls and messages; "always": it also
// withholds a tool's output; "open": nothing blocks on it.
const FAIL = /*FAIL*/"closed";
const TIMEOUT_MS = 30000;

/** Ask hookhost about one event: its outcome, or `{ failed }` saying why there is none. */
function ask(event) {
  return new Promise((resolve) => {
    let out = "";
    let err = "";
    let child;
    try {
      child = spawn(COMMAND[0], COMMAND.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
    } catch (e) {
      resolve({ failed: `cannot run ${COMMAND[0]}: ${e.message}` });
      return;
    }
    const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS);
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ failed: `cannot run ${COMMAND[0]}: ${e.message}` });
    });
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const said = err.trim().split("\n").pop();
      if (code === 1) {
        // hookhost's own error that must not block: an event that gates nothing, or --fail-open.
        // Before an action hookhost never means it otherwise, so there it is a failure (below).
        resolve({ soft: said || "exit 1" });
        return;
      }
      if (code !== 0) {
        resolve({ failed: said || (signal ? `killed by ${signal}` : `exit ${code}`) });
        return;
      }
      try {
        resolve(JSON.parse(out));
      } catch (e) {
        resolve({ failed: `an answer that is not hookhost's: ${e.message}` });
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(event));
  });
}

const stops = (answer) => ["ask", "block", "halt"].includes(answer.decision);
const why = (answer) => answer.reason || "blocked by policy";
const failure = (failed) => `hookhost could not decide, so it blocks (its own failures block before an action): ${failed}`;
const tell = (answer) => {
  for (const n of answer.notices || []) console.error(n);
  if (answer.soft) console.error(answer.soft);
};

export const Hookhost = async ({ directory }) => {
  const envelope = (event, sessionID, data) => ({ event, session_id: sessionID || "opencode", cwd: directory, runtime: "opencode", data });

  return {
    "tool.execute.before": async (input, output) => {
      const answer = await ask(envelope("pre_tool_use", input.sessionID, { tool_name: input.tool, tool_call_id: input.callID, arguments: output.args }));
      tell(answer);
      if (answer.failed || answer.soft) {
        if (FAIL !== "open") throw new Error(failure(answer.failed || answer.soft));
        return;
      }
      if (stops(answer)) throw new Error(`hookhost blocked this ${input.tool} call: ${why(answer)}`);
      const args = answer.arguments;
      if (args && typeof args === "object" && output.args && typeof output.args === "object") {
        // OpenCode runs the tool with this very object: changed in place.
        for (const key of Object.keys(output.args)) if (!(key in args)) delete output.args[key];
        Object.assign(output.args, args);
      }
    },

    "tool.execute.after": async (input, output) => {
      const answer = await ask(envelope("post_tool_use", input.sessionID, { tool_name: input.tool, tool_call_id: input.callID, arguments: input.args, result: output.output }));
      tell(answer);
      if (answer.failed || answer.soft) {
        if (FAIL === "always") output.output = `hookhost withheld this tool's output: ${failure(answer.failed || answer.soft)}`;
        return;
      }
      if (answer.decision === "block" || answer.decision === "halt") {
        output.output = `hookhost withheld this tool's output: ${why(answer)}`;
        return;
      }
      if (typeof answer.result === "string") output.output = answer.result;
      if (answer.context) output.output = `${output.output}\n\n${answer.context}`;
    },

    "chat.message": async (input, output) => {
      const texts = (output.parts || []).filter((p) => p.type === "text" && typeof p.text === "string");
      if (texts.length === 0) return;
      const message = texts.map((p) => p.text).join("\n");
      const answer = await ask(envelope("user_prompt_submit", input.sessionID, { message }));
      tell(answer);
      // A message is not refused by throwing (OpenCode ends the run with an opaque server
      // error): what the model gets in its place says why.
      let replacement;
      if (answer.failed || answer.soft) {
        if (FAIL !== "open") replacement = `[hookhost withheld this message: ${failure(answer.failed || answer.soft)}]`;
      } else if (stops(answer)) {
        replacement = `[hookhost withheld this message: ${why(answer)}]`;
      } else if (typeof answer.message === "string") {
        replacement = answer.message;
      }
      if (replacement !== undefined) {
        texts[0].text = replacement;
        for (const p of texts.slice(1)) p.text = "";
      }
    },
  };
};
