"""A WebSocket client (RFC 6455) on the standard library: enough for NNI's tuner command channel.

Text messages only (binary ones are decoded as UTF-8), pings answered with pongs, fragmented
messages joined, the close handshake answered. One reader thread; sends may come from any thread.
"""

import base64
import hashlib
import os
import socket
import struct
import threading
from urllib.parse import urlsplit

_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'


class Closed(Exception):
    """The server closed the connection (or it broke)."""


class WebSocket:
    def __init__(self, url, timeout=30):
        parts = urlsplit(url)
        if parts.scheme != 'ws':
            raise ValueError('only ws:// URLs: %s' % url)
        self._sock = socket.create_connection((parts.hostname, parts.port or 80), timeout=timeout)
        self._sock.settimeout(None)
        self._send_lock = threading.Lock()
        self._buffer = b''
        key = base64.b64encode(os.urandom(16)).decode()
        path = parts.path + ('?' + parts.query if parts.query else '')
        request = ('GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n'
                   'Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n') % (path, parts.hostname, parts.port or 80, key)
        self._sock.sendall(request.encode())
        head = self._read_until(b'\r\n\r\n').decode('latin-1')
        status = head.split('\r\n', 1)[0]
        if ' 101 ' not in status + ' ':
            raise ConnectionError('the server refused the WebSocket upgrade: %s' % status)
        expected = base64.b64encode(hashlib.sha1((key + _GUID).encode()).digest()).decode()
        accept = [line.split(':', 1)[1].strip() for line in head.split('\r\n')[1:]
                  if line.lower().startswith('sec-websocket-accept:')]
        if accept != [expected]:
            raise ConnectionError('bad Sec-WebSocket-Accept in %r' % head)

    def _read_until(self, marker):
        while marker not in self._buffer:
            chunk = self._sock.recv(65536)
            if not chunk:
                raise Closed('connection closed during the handshake')
            self._buffer += chunk
        head, self._buffer = self._buffer.split(marker, 1)
        return head

    def _read(self, n):
        while len(self._buffer) < n:
            chunk = self._sock.recv(65536)
            if not chunk:
                raise Closed('connection closed')
            self._buffer += chunk
        data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data

    def _send_frame(self, opcode, payload):
        header = bytes([0x80 | opcode])
        length = len(payload)
        if length < 126:
            header += bytes([0x80 | length])
        elif length < 65536:
            header += bytes([0x80 | 126]) + struct.pack('!H', length)
        else:
            header += bytes([0x80 | 127]) + struct.pack('!Q', length)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        with self._send_lock:
            self._sock.sendall(header + mask + masked)

    def send(self, text):
        self._send_frame(0x1, text.encode('utf-8'))

    def receive(self):
        """The next text message; raises Closed when the connection ends."""
        message = b''
        while True:
            first, second = self._read(2)
            opcode = first & 0x0F
            length = second & 0x7F
            if length == 126:
                length = struct.unpack('!H', self._read(2))[0]
            elif length == 127:
                length = struct.unpack('!Q', self._read(8))[0]
            mask = self._read(4) if second & 0x80 else None
            payload = self._read(length)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if opcode == 0x9:  # ping
                self._send_frame(0xA, payload)
                continue
            if opcode == 0xA:  # pong
                continue
            if opcode == 0x8:  # close: answer it, then report it
                try:
                    self._send_frame(0x8, payload[:2])
                except OSError:
                    pass
                self.close()
                code = struct.unpack('!H', payload[:2])[0] if len(payload) >= 2 else 1005
                raise Closed('closed by the server (%d %s)' % (code, payload[2:].decode('utf-8', 'replace')))
            message += payload
            if first & 0x80:
                return message.decode('utf-8')

    def close(self):
        try:
            self._sock.close()
        except OSError:
            pass
