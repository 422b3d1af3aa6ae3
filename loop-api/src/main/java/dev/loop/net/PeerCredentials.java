package dev.loop.net;

/**
 * Who is at the other end of a Unix domain socket, as the kernel recorded it when the peer
 * connected or listened ({@code SO_PEERCRED}). See {@link Connection#peerCredentials}.
 *
 * @param pid the peer's process id
 * @param uid its effective user id
 * @param gid its effective group id
 */
public record PeerCredentials(long pid, long uid, long gid) {
}
