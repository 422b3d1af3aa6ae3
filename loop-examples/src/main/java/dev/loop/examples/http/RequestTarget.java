package dev.loop.examples.http;

/**
 * Tells the four forms of a request target apart (RFC 9112, 3.2) and checks each where the
 * request line lies in the input array. Thread-safe (stateless).
 *
 * <ul>
 *   <li>origin-form, {@code /path?query}: any method but CONNECT.</li>
 *   <li>absolute-form, {@code http://host:port/path?query}: what a client sends to a proxy, and
 *       what a server MUST accept (3.2.2). Its authority replaces {@code Host}: this server has one
 *       site, so it is checked (no userinfo, a host that is not empty), and the path routes.</li>
 *   <li>authority-form, {@code host:port}: CONNECT only, and CONNECT only with it.</li>
 *   <li>asterisk-form, {@code *}: OPTIONS only.</li>
 * </ul>
 */
final class RequestTarget {
    private static final byte[] HTTPS = HttpParser.ascii("https");

    private RequestTarget() {
    }

    /** Sets {@code req.targetForm} and the path's bounds from {@code req}'s target bounds. */
    static void parse(byte[] b, HttpRequest req) throws HttpError {
        int t = req.targetStart;
        int end = req.targetEnd;
        if (req.method == HttpRequest.CONNECT) {
            authorityForm(b, t, end);
            req.targetForm = HttpRequest.AUTHORITY_FORM;
            req.pathStart = req.pathEnd = end;
            return;
        }
        if (b[t] == '/') {
            req.targetForm = HttpRequest.ORIGIN_FORM;
            req.pathStart = t;
            req.pathEnd = end;
            return;
        }
        if (b[t] == '*' && end == t + 1) {
            if (req.method != HttpRequest.OPTIONS) {
                throw new HttpError(400, "the target '*' is for OPTIONS only");
            }
            req.targetForm = HttpRequest.ASTERISK_FORM;
            req.pathStart = req.pathEnd = end;
            return;
        }
        int pathStart = absoluteForm(b, t, end);
        req.targetForm = pathStart == end && req.method == HttpRequest.OPTIONS
                ? HttpRequest.ASTERISK_FORM // OPTIONS http://host is OPTIONS * (RFC 9112, 3.2.4)
                : HttpRequest.ABSOLUTE_FORM;
        req.pathStart = pathStart;
        req.pathEnd = end;
    }

    /** Checks {@code scheme://authority[/path][?query]}; returns where the path (or query) starts. */
    private static int absoluteForm(byte[] b, int t, int end) throws HttpError {
        int i = t;
        while (i < end && isSchemeChar(b[i], i == t)) {
            i++;
        }
        if (i == t || end - i < 3 || b[i] != ':' || b[i + 1] != '/' || b[i + 2] != '/') {
            throw new HttpError(400, "request target is neither a path starting with '/' nor an absolute URI");
        }
        if (!isHttpScheme(b, t, i)) {
            throw new HttpError(400, "absolute request target with a scheme other than http or https");
        }
        int a = i + 3;
        int authorityEnd = a;
        while (authorityEnd < end && b[authorityEnd] != '/' && b[authorityEnd] != '?' && b[authorityEnd] != '#') {
            authorityEnd++;
        }
        if (HttpParser.indexOf(b, a, authorityEnd, '@') >= 0) {
            throw new HttpError(400, "userinfo in the request target's authority"); // RFC 9110, 4.2.4
        }
        checkAuthority(b, a, authorityEnd, false);
        if (authorityEnd < end && b[authorityEnd] == '#') {
            throw new HttpError(400, "fragment in the request target");
        }
        return authorityEnd;
    }

    /** CONNECT's {@code host:port}, the port required (RFC 9110, 9.3.6). */
    private static void authorityForm(byte[] b, int t, int end) throws HttpError {
        if (b[t] == '/' || b[t] == '*' || HttpParser.indexOf(b, t, end, '/') >= 0) {
            throw new HttpError(400, "CONNECT needs a target of the form host:port");
        }
        checkAuthority(b, t, end, true);
    }

    private static void checkAuthority(byte[] b, int from, int to, boolean portRequired) throws HttpError {
        if (!Authority.isHostAndPort(b, from, to)) {
            throw new HttpError(400, "invalid authority in the request target: not a host with an optional port");
        }
        int hostLength = Authority.hostLength(b, from, to);
        if (hostLength == 0) {
            throw new HttpError(400, "empty host in the request target"); // RFC 9110, 4.2.1
        }
        if (portRequired && (from + hostLength >= to - 1)) {
            throw new HttpError(400, "CONNECT needs a target of the form host:port");
        }
    }

    private static boolean isSchemeChar(byte c, boolean first) {
        boolean alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        return alpha || (!first && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'));
    }

    private static boolean isHttpScheme(byte[] b, int from, int to) {
        int n = to - from;
        if (n != 4 && n != 5) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            int c = b[from + i] | 0x20; // scheme bytes are letters, digits, '+', '-', '.': only letters fold
            if (c != HTTPS[i]) {
                return false;
            }
        }
        return true;
    }
}
