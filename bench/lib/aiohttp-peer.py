#!/usr/bin/env python3
# The aiohttp peer of bench/pacing.js: a well-written asyncio script. 16 requests in flight,
# requests started at an even pace of `rate` per second (the documented limit of the lookup), a
# 429 retried after its Retry-After (up to 10 times). It learns nothing from the headers.
#   python3 bench/lib/aiohttp-peer.py <base-url> <key> <kind> <numbers file> <rate>
import asyncio
import sys
import time

import aiohttp


async def main():
    url, key, kind, path, rate = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
    numbers = [line.strip() for line in open(path) if line.strip()]
    headers = {"authorization": f"Bearer {key}", "content-type": "application/json"}
    sem = asyncio.Semaphore(16)
    start = time.monotonic()
    failed = 0

    async def one(session, i, number):
        nonlocal failed
        # Paced: request i starts no earlier than i / rate seconds into the run.
        delay = start + i / rate - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        async with sem:
            for _ in range(11):
                async with session.post(f"{url}/api/v1/{kind}", json={"phone_number": number}, headers=headers) as res:
                    await res.read()
                    if res.status != 429:
                        return
                    wait = float(res.headers.get("retry-after", "1"))
                await asyncio.sleep(wait)
            failed += 1

    connector = aiohttp.TCPConnector(limit=16)
    async with aiohttp.ClientSession(connector=connector) as session:
        await asyncio.gather(*(one(session, i, n) for i, n in enumerate(numbers)))
    if failed:
        sys.exit(f"aiohttp peer: {failed} lookups failed")


asyncio.run(main())
