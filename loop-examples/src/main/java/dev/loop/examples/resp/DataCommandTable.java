package dev.loop.examples.resp;

import dev.loop.examples.resp.CommandTable.Spec;
import java.util.List;

/**
 * The commands on typed values, as {@code COMMAND INFO} describes them (arity, flags and key
 * positions as redis-server 7.0 gives them). Ids are grouped by hundreds, one hundred per class
 * that runs them: 1xx strings ({@link StringEditCommands}), 2xx keys ({@link KeyCommands}), 3xx
 * hashes ({@link HashCommands}), 4xx lists ({@link ListCommands}), 5xx sets
 * ({@link SetCommands}).
 */
final class DataCommandTable {
    static final int TYPE = 212;
    static final int GETSET = 102;
    static final int GETDEL = 103;
    static final int GETEX = 104;
    static final int SETNX = 105;
    static final int SETEX = 106;
    static final int PSETEX = 107;
    static final int APPEND = 108;
    static final int STRLEN = 109;
    static final int GETRANGE = 110;
    static final int SETRANGE = 111;
    static final int INCRBYFLOAT = 112;
    static final int MSETNX = 113;
    static final int KEYS = 201;
    static final int SCAN = 202;
    static final int RENAME = 203;
    static final int RENAMENX = 204;
    static final int UNLINK = 205;
    static final int TOUCH = 206;
    static final int RANDOMKEY = 207;
    static final int EXPIREAT = 208;
    static final int PEXPIREAT = 209;
    static final int EXPIRETIME = 210;
    static final int PEXPIRETIME = 211;
    static final int HSET = 301;
    static final int HGET = 302;
    static final int HMSET = 303;
    static final int HMGET = 304;
    static final int HDEL = 305;
    static final int HEXISTS = 306;
    static final int HLEN = 307;
    static final int HGETALL = 308;
    static final int HKEYS = 309;
    static final int HVALS = 310;
    static final int HINCRBY = 311;
    static final int HINCRBYFLOAT = 312;
    static final int HSETNX = 313;
    static final int HSTRLEN = 314;
    static final int HSCAN = 315;
    static final int LPUSH = 401;
    static final int RPUSH = 402;
    static final int LPUSHX = 403;
    static final int RPUSHX = 404;
    static final int LPOP = 405;
    static final int RPOP = 406;
    static final int LLEN = 407;
    static final int LRANGE = 408;
    static final int LINDEX = 409;
    static final int LSET = 410;
    static final int LREM = 411;
    static final int LTRIM = 412;
    static final int LINSERT = 413;
    static final int LPOS = 414;
    static final int LMOVE = 415;
    static final int RPOPLPUSH = 416;
    static final int BLPOP = 417;
    static final int BRPOP = 418;
    static final int BLMOVE = 419;
    static final int SADD = 501;
    static final int SREM = 502;
    static final int SISMEMBER = 503;
    static final int SMISMEMBER = 504;
    static final int SMEMBERS = 505;
    static final int SCARD = 506;
    static final int SPOP = 507;
    static final int SRANDMEMBER = 508;
    static final int SINTER = 509;
    static final int SINTERSTORE = 510;
    static final int SUNION = 511;
    static final int SUNIONSTORE = 512;
    static final int SDIFF = 513;
    static final int SDIFFSTORE = 514;
    static final int SMOVE = 515;
    static final int SSCAN = 516;

    static final List<Spec> ALL = List.of(
            new Spec(TYPE, "type", 2, List.of("readonly", "fast"), 1, 1, 1),
            new Spec(GETSET, "getset", 3, List.of("write", "denyoom", "fast"), 1, 1, 1),
            new Spec(GETDEL, "getdel", 2, List.of("write", "fast"), 1, 1, 1),
            new Spec(GETEX, "getex", -2, List.of("write", "fast"), 1, 1, 1),
            new Spec(SETNX, "setnx", 3, List.of("write", "denyoom", "fast"), 1, 1, 1),
            new Spec(SETEX, "setex", 4, List.of("write", "denyoom"), 1, 1, 1),
            new Spec(PSETEX, "psetex", 4, List.of("write", "denyoom"), 1, 1, 1),
            new Spec(APPEND, "append", 3, List.of("write", "denyoom", "fast"), 1, 1, 1),
            new Spec(STRLEN, "strlen", 2, List.of("readonly", "fast"), 1, 1, 1),
            new Spec(GETRANGE, "getrange", 4, List.of("readonly"), 1, 1, 1),
            new Spec(SETRANGE, "setrange", 4, List.of("write", "denyoom"), 1, 1, 1),
            new Spec(INCRBYFLOAT, "incrbyfloat", 3, List.of("write", "denyoom", "fast"), 1, 1, 1),
            new Spec(MSETNX, "msetnx", -3, List.of("write", "denyoom"), 1, -1, 2),
            new Spec(KEYS, "keys", 2, List.of("readonly"), 0, 0, 0),
            new Spec(SCAN, "scan", -2, List.of("readonly"), 0, 0, 0),
            new Spec(RENAME, "rename", 3, List.of("write"), 1, 2, 1),
            new Spec(RENAMENX, "renamenx", 3, List.of("write", "fast"), 1, 2, 1),
            new Spec(UNLINK, "unlink", -2, List.of("write", "fast"), 1, -1, 1),
            new Spec(TOUCH, "touch", -2, List.of("readonly", "fast"), 1, -1, 1),
            new Spec(RANDOMKEY, "randomkey", 1, List.of("readonly"), 0, 0, 0),
            new Spec(EXPIREAT, "expireat", -3, List.of("write", "fast"), 1, 1, 1),
            new Spec(PEXPIREAT, "pexpireat", -3, List.of("write", "fast"), 1, 1, 1),
            new Spec(EXPIRETIME, "expiretime", 2, List.of("readonly", "fast"), 1, 1, 1),
            new Spec(PEXPIRETIME, "pexpiretime", 2, List.of("readonly", "fast"), 1, 1, 1),
            new Spec(HSET, "hset", -4, List.of("write", "denyoom", "fast"), 1, 1, 1),
            new Spec(HGET, "hget", 3, List.of("readonly", "fast"), 1, 1, 1),
            new Spec(HMSET, "hmset", -4, List.of("write", "denyoom", "fast"), 1, 1, 1),
            new Spec(HMGET, "hmget", -3, List.of("readonly", "fast"), 1, 1, 1),
            new Spec(HDEL, "hdel", -3, List.of("write", "fast"), 1, 1, 1),
            new Spec(HEXISTS, "hexists", 3, List.of("readonly", "fast"), 1, 1, 1),
            new Spec(HLEN, "hlen", 2, List.of("readonly", "fast"), 1, 1, 1),
            new Spec(HGETALL, "hgetall", 2, List.of("readonly"), 1, 1, 1),
            new Spec(HKEYS, "hkeys", 2, List.of("readonly"), 1, 1, 1),
            new Spec(HVALS, "hvals", 2, List.of("readonly"), 1, 1, 1),
            new Spec(HINCRBY, "hincrby", 4, List.of("write", "denyoom", "fast"), 1, 1, 1),
            new Spec(HINCRBYFLOAT, "hincrbyfloat", 4, List.of("write", "denyoom", "fast"), 1, 1, 1),
            new Spec(HSETNX, "hsetnx", 4, List.of("write", "denyoom", "fast"), 1, 1, 1),
            new Spec(HSTRLEN, "hstrlen", 3, List.of("readonly", "fast"), 1, 1, 1),
            new Spec(HSCAN, "hscan", -3, List.of("readonly"), 1, 1, 1),
            new Spec(LPUSH, "lpush", -3, List.of("write", "denyoom", "fast"), 1, 1, 1),
            new Spec(RPUSH, "rpush", -3, List.of("write", "denyoom", "fast"), 1, 1, 1),
            new Spec(LPUSHX, "lpushx", -3, List.of("write", "denyoom", "fast"), 1, 1, 1),
            new Spec(RPUSHX, "rpushx", -3, List.of("write", "denyoom", "fast"), 1, 1, 1),
            new Spec(LPOP, "lpop", -2, List.of("write", "fast"), 1, 1, 1),
            new Spec(RPOP, "rpop", -2, List.of("write", "fast"), 1, 1, 1),
            new Spec(LLEN, "llen", 2, List.of("readonly", "fast"), 1, 1, 1),
            new Spec(LRANGE, "lrange", 4, List.of("readonly"), 1, 1, 1),
            new Spec(LINDEX, "lindex", 3, List.of("readonly"), 1, 1, 1),
            new Spec(LSET, "lset", 4, List.of("write", "denyoom"), 1, 1, 1),
            new Spec(LREM, "lrem", 4, List.of("write"), 1, 1, 1),
            new Spec(LTRIM, "ltrim", 4, List.of("write"), 1, 1, 1),
            new Spec(LINSERT, "linsert", 5, List.of("write", "denyoom"), 1, 1, 1),
            new Spec(LPOS, "lpos", -3, List.of("readonly"), 1, 1, 1),
            new Spec(LMOVE, "lmove", 5, List.of("write", "denyoom"), 1, 2, 1),
            new Spec(RPOPLPUSH, "rpoplpush", 3, List.of("write", "denyoom"), 1, 2, 1),
            new Spec(BLPOP, "blpop", -3, List.of("write", "noscript", "blocking"), 1, -2, 1),
            new Spec(BRPOP, "brpop", -3, List.of("write", "noscript", "blocking"), 1, -2, 1),
            new Spec(BLMOVE, "blmove", 6, List.of("write", "denyoom", "noscript", "blocking"), 1, 2, 1),
            new Spec(SADD, "sadd", -3, List.of("write", "denyoom", "fast"), 1, 1, 1),
            new Spec(SREM, "srem", -3, List.of("write", "fast"), 1, 1, 1),
            new Spec(SISMEMBER, "sismember", 3, List.of("readonly", "fast"), 1, 1, 1),
            new Spec(SMISMEMBER, "smismember", -3, List.of("readonly", "fast"), 1, 1, 1),
            new Spec(SMEMBERS, "smembers", 2, List.of("readonly"), 1, 1, 1),
            new Spec(SCARD, "scard", 2, List.of("readonly", "fast"), 1, 1, 1),
            new Spec(SPOP, "spop", -2, List.of("write", "fast"), 1, 1, 1),
            new Spec(SRANDMEMBER, "srandmember", -2, List.of("readonly"), 1, 1, 1),
            new Spec(SINTER, "sinter", -2, List.of("readonly"), 1, -1, 1),
            new Spec(SINTERSTORE, "sinterstore", -3, List.of("write", "denyoom"), 1, -1, 1),
            new Spec(SUNION, "sunion", -2, List.of("readonly"), 1, -1, 1),
            new Spec(SUNIONSTORE, "sunionstore", -3, List.of("write", "denyoom"), 1, -1, 1),
            new Spec(SDIFF, "sdiff", -2, List.of("readonly"), 1, -1, 1),
            new Spec(SDIFFSTORE, "sdiffstore", -3, List.of("write", "denyoom"), 1, -1, 1),
            new Spec(SMOVE, "smove", 4, List.of("write", "fast"), 1, 2, 1),
            new Spec(SSCAN, "sscan", -3, List.of("readonly"), 1, 1, 1));

    private DataCommandTable() {
    }
}
