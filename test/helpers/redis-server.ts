/**
 * A redis-server of a test's own (Debian's redis-server, in .ci/run's list) on a free loopback
 * port, without persistence, that the test stops, starts again on the same port, or freezes
 * (SIGSTOP: connections stay open and commands are accepted, never answered) and thaws.
 */
import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import { freePort } from "./ports.js";

export interface RedisServer {
  port: number;
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  freeze(): void;
  thaw(): void;
}

/** Whether something on the port answers PING with PONG. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let text = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on("error", () => done(false));
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (data) => {
      text += data.toString();
      if (text.includes("\r\n")) done(text.startsWith("+PONG"));
    });
  });
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const server: RedisServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      if (child) throw new Error("redis-server is already running");
      const started = spawn(
        "redis-server",
        ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--loglevel", "warning"],
        { stdio: "ignore" },
      );
      child = started;
      const exited = new Promise<never>((_, reject) =>
        started.once("exit", (code) => reject(new Error(`redis-server exited (${code}); is it installed (apt-get install redis-server)?`))),
      );
      exited.catch(() => {});
      for (let i = 0; i < 200; i++) {
        if (await Promise.race([answersPing(port), exited])) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`redis-server on port ${port} did not answer PING`);
    },
    async stop() {
      const running = child;
      if (!running) return;
      child = undefined;
      const exited = new Promise((resolve) => running.once("exit", resolve));
      running.kill("SIGCONT");
      running.kill("SIGTERM");
      await exited;
    },
    freeze() {
      child?.kill("SIGSTOP");
    },
    thaw() {
      child?.kill("SIGCONT");
    },
  };
  await server.start();
  return server;
}
