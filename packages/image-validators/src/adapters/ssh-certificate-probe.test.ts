import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HOST_CERTIFICATE_ALGORITHMS } from '../ssh-certificate.js';
import { SshReader, sshString, sshUint32 } from '../ssh-wire.js';
import {
  framePacket,
  PROBE_KEX,
  parseKexInit,
  probeHostCertificate,
  probeKexInit,
} from './ssh-certificate-probe.js';

/** Reads one unencrypted packet's payload from the start of `data`, with the bytes it used. */
function unframe(data: Buffer): { payload: Buffer; used: number } | undefined {
  if (data.length < 5) return undefined;
  const length = data.readUInt32BE(0);
  if (data.length < 4 + length) return undefined;
  const pad = data[4] as number;
  return { payload: data.subarray(5, 4 + length - pad), used: 4 + length };
}

const kexInit = (kex: string[], hostKey: string[]) =>
  Buffer.concat([
    Buffer.from([20]),
    randomBytes(16),
    ...[
      kex.join(','),
      hostKey.join(','),
      'aes128-ctr',
      'aes128-ctr',
      'hmac-sha2-256',
      'hmac-sha2-256',
      'none',
      'none',
      '',
      '',
    ].map((l) => sshString(l)),
    Buffer.from([0]),
    sshUint32(0),
  ]);

describe('probe packets', () => {
  it('frames payloads to whole blocks of 8 with at least 4 bytes of padding', () => {
    for (let size = 0; size < 40; size += 1) {
      const packet = framePacket(Buffer.alloc(size, 1));
      expect(packet.length % 8).toBe(0);
      const pad = packet[4] as number;
      expect(pad).toBeGreaterThanOrEqual(4);
      expect(unframe(packet)?.payload).toEqual(Buffer.alloc(size, 1));
    }
  });

  it('offers its key exchanges and only certificate host key algorithms', () => {
    expect(parseKexInit(probeKexInit())).toEqual({
      kex: [...PROBE_KEX],
      hostKey: [...HOST_CERTIFICATE_ALGORITHMS],
    });
    expect(parseKexInit(Buffer.from([20, 1, 2]))).toBeUndefined();
    expect(parseKexInit(Buffer.from([21]))).toBeUndefined();
  });
});

describe('probeHostCertificate against a scripted server', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  /** A server that runs `script` on each connection, and a client socket to it. */
  const serve = async (script: (socket: Socket, received: () => Buffer) => void): Promise<Socket> => {
    server = createServer((socket) => {
      let received = Buffer.alloc(0);
      socket.on('data', (b: Buffer) => {
        received = Buffer.concat([received, b]);
      });
      socket.on('error', () => {});
      script(socket, () => received);
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as { port: number };
    return connect(port, '127.0.0.1');
  };

  it('reads the certificate from the key exchange reply, after banner lines and ignored messages', async () => {
    const certificate = Buffer.concat([sshString('ssh-ed25519-cert-v01@openssh.com'), randomBytes(100)]);
    const socket = await serve((s, received) => {
      s.write('Welcome to the lab\r\nSSH-2.0-OpenSSH_9.2\r\n');
      s.write(framePacket(Buffer.concat([Buffer.from([2]), sshString('ignore me')])));
      s.write(
        framePacket(
          kexInit(
            ['sntrup761x25519-sha512@openssh.com', 'curve25519-sha256'],
            ['ssh-ed25519', 'ssh-ed25519-cert-v01@openssh.com'],
          ),
        ),
      );
      const wait = setInterval(() => {
        // Our version line, our KEXINIT, then our key exchange init (message 30) with a 32-byte X25519 value.
        const text = received();
        const afterVersion = text.subarray(text.indexOf(10) + 1);
        const first = unframe(afterVersion);
        const second = first ? unframe(afterVersion.subarray(first.used)) : undefined;
        if (!second) return;
        clearInterval(wait);
        expect(second.payload[0]).toBe(30);
        expect(new SshReader(second.payload.subarray(1)).bytes()?.length).toBe(32);
        s.write(
          framePacket(
            Buffer.concat([Buffer.from([31]), sshString(certificate), sshString('Q'), sshString('sig')]),
          ),
        );
      }, 5);
    });
    expect(await probeHostCertificate(socket, 5000)).toEqual({ certificate });
    expect(socket.destroyed).toBe(true);
  });

  it('says when the server presents no certificate, or no key exchange the probe knows', async () => {
    const plain = await serve((s) => {
      s.write('SSH-2.0-x\r\n');
      s.write(framePacket(kexInit(['curve25519-sha256'], ['ssh-ed25519', 'rsa-sha2-512'])));
    });
    expect(await probeHostCertificate(plain, 5000)).toEqual({
      reason: 'the server presents no host certificate',
    });
    const odd = await serve((s) => {
      s.write('SSH-2.0-x\r\n');
      s.write(framePacket(kexInit(['diffie-hellman-group1-sha1'], ['ssh-ed25519-cert-v01@openssh.com'])));
    });
    expect(await probeHostCertificate(odd, 5000)).toEqual({
      reason: 'the server offers no key exchange the certificate probe knows',
    });
  });

  it('gives a reason, never an exception, for servers that misbehave', async () => {
    const cases: [string, (s: Socket) => void, string | RegExp][] = [
      [
        'closes',
        (s) => s.end('SSH-2.0-x\r\n'),
        'the server closed the connection during the certificate probe',
      ],
      ['speaks SSH 1', (s) => s.write('SSH-1.5-old\r\n'), 'the server speaks SSH-1.5-old'],
      [
        'sends a huge packet',
        (s) => s.write(Buffer.concat([Buffer.from('SSH-2.0-x\r\n'), sshUint32(2 ** 30), Buffer.from([4])])),
        'the server sent a malformed packet',
      ],
      [
        'disconnects',
        (s) =>
          s.write(
            Buffer.concat([
              Buffer.from('SSH-2.0-x\r\n'),
              framePacket(Buffer.concat([Buffer.from([1]), sshUint32(3), sshString('go away')])),
            ]),
          ),
        'the server ended the certificate probe (go away)',
      ],
      [
        'sends something else',
        (s) => s.write(Buffer.concat([Buffer.from('SSH-2.0-x\r\n'), framePacket(Buffer.from([94, 0]))])),
        'the server sent message 94 during the key exchange',
      ],
      ['never sends a version', (s) => s.write('x'.repeat(70 * 1024)), 'the server sent no SSH version line'],
      ['stays silent', () => {}, /did not answer the certificate probe within 300 ms/],
    ];
    for (const [name, script, reason] of cases) {
      const socket = await serve(script);
      const r = await probeHostCertificate(socket, 300);
      expect(r.certificate, name).toBeUndefined();
      expect('reason' in r && r.reason, name).toMatch(reason);
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      server = undefined;
    }
  });
});
