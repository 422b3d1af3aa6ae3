package dev.loop.linux;

import io.netty.channel.unix.Buffer;
import java.nio.ByteBuffer;

/**
 * A loop's one direct buffer that heap buffers are copied through on their way to or from a
 * native call, which needs memory that does not move. Allocated at first use; its contents mean
 * nothing between calls. Loop thread only.
 */
public final class CopyBuffer {
    private final int size;
    private ByteBuffer buffer;
    private long address;

    /** @param size the capacity: at least the largest datagram (65,536), so none is ever cut */
    public CopyBuffer(int size) {
        this.size = size;
    }

    /** The buffer, allocated on the first call. */
    public ByteBuffer buffer() {
        if (buffer == null) {
            buffer = ByteBuffer.allocateDirect(size);
            address = Buffer.memoryAddress(buffer);
        }
        return buffer;
    }

    /** The native address of {@link #buffer()}; call that first. */
    public long address() {
        return address;
    }
}
