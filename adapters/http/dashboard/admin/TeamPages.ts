/**
 * The team page (admins only): the organization's users with their roles, a form to change a
 * role, removing after a confirmation, the pending invites with who sent each ("—" for an
 * operator's, and for one older than that record), and inviting by address, the link shown once. Forms work
 * without JavaScript; every field has a label.
 */
import { html } from "htm/preact"
import type { Invite, TeamMember } from "../../../../core/accounts/ports/UserStore.ts"
import { csrfField, page, type Viewer } from "../frame/Layout.ts"
import { alert, notice, table, when } from "../frame/Parts.ts"

export const teamPath = "/dashboard/team"
export const invitePath = `${teamPath}/invite`
/** Where inviting leads: the link, once. */
export const invitedPath = `${teamPath}/invited`
export const memberPath = (id: string) => `${teamPath}/${id}`
export const revokeInvitePath = `${teamPath}/invites/revoke`

const roleForm = (viewer: Viewer, member: TeamMember) => html`
  <form method="post" action=${`${memberPath(member.id)}/role`} class="inline">
    ${csrfField(viewer)}
    <select name="role" aria-label=${`Role of ${member.email}`}>
      <option value="admin" selected=${member.role === "admin"}>admin</option>
      <option value="member" selected=${member.role === "member"}>member</option>
    </select>
    <button type="submit" class="secondary">Change role</button>
  </form>
`

const memberRow = (viewer: Viewer, member: TeamMember) => html`
  <tr>
    <th scope="row">${member.email}${member.id === viewer.user.id ? " (you)" : ""}</th>
    <td>${member.role}</td>
    <td>${member.secondFactor ? "on" : "off"}</td>
    <td>${when(member.createdAt, "")}</td>
    <td>${member.removedAt === null ? roleForm(viewer, member) : html`removed ${when(member.removedAt, "")}`}</td>
    <td>
      ${
        member.removedAt === null
          ? html`<a href=${`${memberPath(member.id)}/remove`} aria-label=${`Remove ${member.email}`}>Remove…</a>`
          : null
      }
    </td>
  </tr>
`

const inviteRow = (viewer: Viewer, invite: Invite) => html`
  <tr>
    <th scope="row">${invite.email}</th>
    <td>${invite.role}</td>
    <td>${invite.invitedBy ?? "—"}</td>
    <td>${when(invite.createdAt, "")}</td>
    <td>${when(invite.expiresAt, "")}</td>
    <td>
      <form
        method="post"
        action=${revokeInvitePath}
        class="inline"
        data-confirm=${`Revoke the invite of ${invite.email}? Its link stops working.`}
      >
        ${csrfField(viewer)}
        <input type="hidden" name="email" value=${invite.email} />
        <button type="submit" class="secondary" aria-label=${`Revoke the invite of ${invite.email}`}>Revoke</button>
      </form>
    </td>
  </tr>
`

const pendingSection = (viewer: Viewer, invites: ReadonlyArray<Invite>) => html`
  <section aria-labelledby="pending-heading">
    <h2 id="pending-heading">Pending invites</h2>
    ${
      invites.length === 0
        ? html`<p>No invite is waiting to be used.</p>`
        : table(
            "Invites whose links still work; revoking one stops its link at once",
            ["E-mail address", "Role", "Sent by", "Invited", "Expires", "Revoke"],
            invites.map((invite) => inviteRow(viewer, invite))
          )
    }
  </section>
`

export const team = (
  viewer: Viewer,
  members: ReadonlyArray<TeamMember>,
  invites: ReadonlyArray<Invite>,
  messages: { readonly problem?: string | undefined; readonly notice?: string | undefined } = {}
) =>
  page(
    "Team",
    html`
      <h1>Team</h1>
      <p>
        A role change or a removal holds from the user's next request on: all of their sessions end. An organization
        always keeps one admin.
      </p>
      ${notice(messages.notice)} ${alert(messages.problem)}
      ${table(
        "Your organization's dashboard users",
        ["E-mail address", "Role", "Second factor", "Since", "Change", "Remove"],
        members.map((member) => memberRow(viewer, member))
      )}
      ${pendingSection(viewer, invites)}
      <section aria-labelledby="invite-heading">
        <h2 id="invite-heading">Invite someone</h2>
        <p>
          The link sets their password once, within 72 hours. Inviting someone already here again resets their
          password and second factor: their sessions end at once, and their older links stop working.
        </p>
        <form method="post" action=${invitePath}>
          ${csrfField(viewer)}
          <label for="invite-email">E-mail address</label>
          <input id="invite-email" name="email" type="email" required maxlength="254" />
          <label for="invite-role">Role</label>
          <select id="invite-role" name="role">
            <option value="member">member (reads)</option>
            <option value="admin">admin (manages keys, pairs and the team)</option>
          </select>
          <button type="submit">Invite</button>
        </form>
      </section>
    `,
    viewer,
    { current: "/dashboard/team" }
  )

export const invited = (viewer: Viewer, invite: Invite, link: string) =>
  page(
    "Invite link",
    html`
      <h1>Invite for ${invite.email}</h1>
      <p role="status">
        Send this link to ${invite.email} (${invite.role}). It works once and expires ${when(invite.expiresAt, "")}; it is
        not shown again.
      </p>
      <label for="invite-link">The invite link</label>
      <input id="invite-link" class="secret" type="text" readonly value=${link} />
      <button type="button" data-copy="invite-link" hidden>Copy the link</button>
      <p><a href=${teamPath}>Back to the team</a></p>
    `,
    viewer,
    { current: "/dashboard/team" }
  )

export const confirmRemove = (viewer: Viewer, member: TeamMember) =>
  page(
    "Remove user",
    html`
      <h1>Remove ${member.email}?</h1>
      <p>Their sessions end at once and they cannot sign in any more. An invite lets them in again.</p>
      <form method="post" action=${`${memberPath(member.id)}/remove`}>
        ${csrfField(viewer)}
        <button type="submit">Remove ${member.email}</button>
      </form>
      <p><a href=${teamPath}>Cancel</a></p>
    `,
    viewer,
    { current: "/dashboard/team" }
  )
