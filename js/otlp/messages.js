// Message content as the GenAI conventions' opt-in attributes hold it:
// `gen_ai.input.messages` and `gen_ai.output.messages` are JSON arrays of
// messages (`{role, parts}`; an output message also `finish_reason`, which
// the conventions' schema requires and backends such as Phoenix drop a
// message without), `gen_ai.system_instructions` an array of parts.
// Written as text, so that a tool call's arguments keep the JSON the log
// wrote.

const q = JSON.stringify;

const textPart = (content) => `{"type":"text","content":${q(content)}}`;

function message(role, parts, finishReason) {
  const finish = finishReason === undefined ? "" : `,"finish_reason":${q(finishReason)}`;
  return `{"role":${q(role)},"parts":[${parts.join(",")}]${finish}}`;
}

/** The goal as the input messages of the run: one user message. */
export const goalMessages = (text) => `[${message("user", [textPart(text)])}]`;

/** The system prompt as `gen_ai.system_instructions`: one text part. */
export const systemInstructions = (text) => `[${textPart(text)}]`;

/** Why a reply ended, in the conventions' terms: it asked for tools
 * (`tool_call`), its call failed (`error`), else `stop`. (The log does not
 * record the provider's own reason.) */
export function finishReason(askedForTools, failed) {
  if (askedForTools) return "tool_call";
  return failed ? "error" : "stop";
}

/** A reply as `gen_ai.output.messages`: one assistant message with its
 * text and the tool calls it asked for (`{id, name, arguments}`, the
 * arguments as JSON text). */
export function outputMessages(text, requested, reason) {
  const parts = text === "" ? [] : [textPart(text)];
  for (const call of requested) {
    const name = q(call.name ?? "");
    parts.push(
      `{"type":"tool_call","id":${q(call.id)},"name":${name},"arguments":${call.arguments}}`,
    );
  }
  return `[${message("assistant", parts, reason)}]`;
}

/** A tool's result (or its denial) as the tool message the model read. */
function toolMessage(callId, response) {
  const part = `{"type":"tool_call_response","id":${q(callId)},"response":${q(response)}}`;
  return message("tool", [part]);
}

/** The input messages of each model call: what reached the model since
 * the call before (the goal as a user message, the tools' results as tool
 * messages), not the whole context it was sent, which the log does not
 * record. One per assistant entry of the transcript, in order, then one
 * for a call that no completion followed; `""` where there is none. */
export function callInputs(transcript) {
  const inputs = [];
  let pending = [];
  const flush = () => {
    inputs.push(pending.length ? `[${pending.join(",")}]` : "");
    pending = [];
  };
  for (const entry of transcript) {
    if (entry.type === "goal") pending.push(message("user", [textPart(entry.text)]));
    else if (entry.type === "tool_call" && entry.result)
      pending.push(toolMessage(entry.call_id, entry.result.output));
    else if (entry.type === "tool_call" && typeof entry.denied === "string")
      pending.push(toolMessage(entry.call_id, `denied: ${entry.denied}`));
    else if (entry.type === "assistant") flush();
  }
  flush();
  return inputs;
}
