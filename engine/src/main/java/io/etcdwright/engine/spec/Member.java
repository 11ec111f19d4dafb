package io.etcdwright.engine.spec;

import io.etcdwright.engine.inventory.InventoryHost;
import java.util.Objects;

/**
 * One etcd member: an inventory host chosen by the spec's {@code members}.
 *
 * @param name    the etcd member name ({@code etcd_member_name}, or the inventory host name)
 * @param address the address etcd advertises and listens on ({@code etcd_address}, or the SSH address)
 */
public record Member(String name, InventoryHost host, String address) {

    public Member {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(address, "address");
    }

    public static Member of(InventoryHost host) {
        return new Member(host.memberName(), host, host.etcdAddress());
    }
}
