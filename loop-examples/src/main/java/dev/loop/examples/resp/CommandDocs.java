package dev.loop.examples.resp;

import java.util.HashMap;
import java.util.Map;

/**
 * What {@code COMMAND DOCS} says of each command: a one-line summary, the Redis version that
 * introduced it, and its group, in this server's own words. redis-cli's {@code help} prints these.
 * A command without an entry is described by its name and group "generic" alone.
 */
final class CommandDocs {
    record Doc(String summary, String since, String group) {
    }

    private static final Map<String, Doc> DOCS = new HashMap<>();

    static {
        // name | group | since | summary
        String table = """
                ping|connection|1.0.0|Answers PONG, or echoes the argument: checks the connection is alive.
                echo|connection|1.0.0|Answers the argument as it came.
                select|connection|1.0.0|Makes another numbered database the connection's current one.
                quit|connection|1.0.0|Answers OK and closes the connection once the reply is written.
                hello|connection|6.0.0|Picks the protocol (2 or 3), optionally authenticates and names the connection.
                auth|connection|1.0.0|Authenticates the connection as the default user.
                client|connection|2.4.0|Names the connection and inspects the server's connections.
                reset|connection|6.2.0|Returns the connection to its state just after connecting.
                command|server|2.8.13|Describes the commands this server knows.
                config|server|2.0.0|Reads server settings (GET only).
                info|server|1.0.0|Reports the server's state in sections of name:value lines.
                dbsize|server|1.0.0|Counts the keys of the current database.
                flushall|server|1.0.0|Deletes every key of every database.
                flushdb|server|1.0.0|Deletes every key of the current database.
                multi|transactions|1.2.0|Starts queueing commands for EXEC.
                exec|transactions|1.2.0|Runs the queued commands at once, unless a watched key changed.
                discard|transactions|2.0.0|Drops the queued commands.
                watch|transactions|2.2.0|Makes the next EXEC fail if one of these keys changes first.
                unwatch|transactions|2.2.0|Forgets every watched key.
                subscribe|pubsub|2.0.0|Listens for messages published to channels.
                unsubscribe|pubsub|2.0.0|Stops listening to channels (all of them without arguments).
                psubscribe|pubsub|2.0.0|Listens for messages to channels whose names match glob patterns.
                punsubscribe|pubsub|2.0.0|Stops listening to patterns (all of them without arguments).
                publish|pubsub|2.0.0|Sends a message to a channel's listeners; answers how many got it.
                pubsub|pubsub|2.8.0|Lists active channels and counts listeners.
                get|string|1.0.0|Answers the string value of a key.
                set|string|1.0.0|Sets a key's string value, with an optional expiry and conditions.
                getset|string|1.0.0|Sets a key's value and answers the old one.
                getdel|string|6.2.0|Answers a key's value and deletes the key.
                getex|string|6.2.0|Answers a key's value and changes its expiry.
                setnx|string|1.0.0|Sets a key's value only if the key does not exist.
                setex|string|2.0.0|Sets a key's value with an expiry in seconds.
                psetex|string|2.6.0|Sets a key's value with an expiry in milliseconds.
                append|string|2.0.0|Appends to a key's string value.
                strlen|string|2.2.0|Answers the length of a key's string value.
                getrange|string|2.4.0|Answers a substring of a key's value.
                setrange|string|2.2.0|Overwrites part of a key's value at an offset.
                incr|string|1.0.0|Adds one to a key's integer value.
                decr|string|1.0.0|Subtracts one from a key's integer value.
                incrby|string|1.0.0|Adds an integer to a key's integer value.
                decrby|string|1.0.0|Subtracts an integer from a key's integer value.
                incrbyfloat|string|2.6.0|Adds a floating-point number to a key's value.
                mget|string|1.0.0|Answers the values of several keys.
                mset|string|1.0.1|Sets several keys at once.
                msetnx|string|1.0.1|Sets several keys at once, only if none of them exists.
                del|generic|1.0.0|Deletes keys; answers how many there were.
                unlink|generic|4.0.0|Deletes keys; answers how many there were.
                exists|generic|1.0.0|Counts how many of the keys exist.
                type|generic|1.0.0|Answers the type of a key's value.
                keys|generic|1.0.0|Answers the keys matching a glob pattern.
                scan|generic|2.8.0|Walks the keyspace a page at a time with a cursor.
                randomkey|generic|1.0.0|Answers a key picked at random.
                rename|generic|1.0.0|Gives a key another name.
                renamenx|generic|1.0.0|Gives a key another name if that name is free.
                touch|generic|3.2.1|Counts how many of the keys exist.
                expire|generic|1.0.0|Sets a key's time to live in seconds.
                pexpire|generic|2.6.0|Sets a key's time to live in milliseconds.
                expireat|generic|1.2.0|Sets a key's expiry as a Unix time in seconds.
                pexpireat|generic|2.6.0|Sets a key's expiry as a Unix time in milliseconds.
                expiretime|generic|7.0.0|Answers a key's expiry as a Unix time in seconds.
                pexpiretime|generic|7.0.0|Answers a key's expiry as a Unix time in milliseconds.
                ttl|generic|1.0.0|Answers a key's remaining time to live in seconds.
                pttl|generic|2.6.0|Answers a key's remaining time to live in milliseconds.
                persist|generic|2.2.0|Drops a key's expiry.
                time|server|2.6.0|Answers the server's time as seconds and microseconds.
                hset|hash|2.0.0|Sets fields of a hash.
                hget|hash|2.0.0|Answers the value of a hash field.
                hdel|hash|2.0.0|Deletes fields of a hash.
                hgetall|hash|2.0.0|Answers every field and value of a hash.
                lpush|list|1.0.0|Prepends values to a list.
                rpush|list|1.0.0|Appends values to a list.
                lpop|list|1.0.0|Removes and answers the first values of a list.
                rpop|list|1.0.0|Removes and answers the last values of a list.
                blpop|list|2.0.0|Removes the first value of the first non-empty list, waiting for one.
                brpop|list|2.0.0|Removes the last value of the first non-empty list, waiting for one.
                lrange|list|1.0.0|Answers a range of a list's values.
                llen|list|1.0.0|Answers the length of a list.
                sadd|set|1.0.0|Adds members to a set.
                srem|set|1.0.0|Removes members from a set.
                smembers|set|1.0.0|Answers every member of a set.
                spop|set|1.0.0|Removes and answers random members of a set.
                """;
        table.lines().forEach(line -> {
            String[] f = line.split("\\|", 4);
            DOCS.put(f[0], new Doc(f[3], f[2], f[1]));
        });
    }

    private CommandDocs() {
    }

    static Doc of(String name) {
        return DOCS.getOrDefault(name, new Doc(name.toUpperCase(java.util.Locale.ROOT), "1.0.0", "generic"));
    }

    /** One command's documentation: its name, then a map of summary, since and group. */
    static void describe(CommandTable.Spec s, Reply r) {
        Doc d = of(s.name());
        r.bulk(s.name());
        r.mapHeader(3);
        r.bulk("summary");
        r.bulk(d.summary());
        r.bulk("since");
        r.bulk(d.since());
        r.bulk("group");
        r.bulk(d.group());
    }
}
