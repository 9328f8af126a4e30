// The upstream for benchmarks: the tests' fake OpenAI server, in its own process so its work does not
// share the measured process's event loop. Prints its base URL, then serves until killed.
import { startFakeOpenAI } from "../tests/fakes/openai";

const fake = await startFakeOpenAI();
fake.setDefault({ kind: "text", text: "ok", usage: { input: 12, output: 1 } });
// Keep memory flat over a long run: the recorded requests are not needed here.
setInterval(() => fake.requests.splice(0), 1000).unref();
process.stdout.write(`${fake.url}\n`);
